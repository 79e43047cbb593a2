/** The demo market's industries: name parts, which boards list them, and the ranges of their fundamentals. */
import type { Board } from '../../domain/codes.js'

export type Track = 'tech' | 'consumer' | 'energy' | 'healthcare' | 'industrial' | 'materials' | 'finance'

type Range = readonly [number, number]

export interface Industry {
  readonly name: string
  readonly track: Track
  /** Endings of company names, e.g. 药业. */
  readonly suffixes: readonly string[]
  /** Relative frequency per board; a board not listed never lists the industry. */
  readonly boards: Partial<Record<Board, number>>
  /** PE(TTM) range of its profitable companies at the start of the window. */
  readonly pe: Range
  readonly roe: Range
  /** null: the metric does not apply (banks, brokers, insurers). */
  readonly grossMargin: Range | null
  readonly debt: Range
}

const ALL = (w: number): Partial<Record<Board, number>> => ({ main: w, chinext: w, star: w, bse: w })
const MAIN = (w: number): Partial<Record<Board, number>> => ({ main: w })

export const INDUSTRIES: readonly Industry[] = [
  {
    name: '银行',
    track: 'finance',
    suffixes: ['银行', '农商银行'],
    boards: MAIN(2),
    pe: [4, 8],
    roe: [0.08, 0.14],
    grossMargin: null,
    debt: [0.9, 0.93],
  },
  {
    name: '证券',
    track: 'finance',
    suffixes: ['证券'],
    boards: MAIN(2),
    pe: [14, 32],
    roe: [0.05, 0.1],
    grossMargin: null,
    debt: [0.65, 0.8],
  },
  {
    name: '保险',
    track: 'finance',
    suffixes: ['保险', '人寿'],
    boards: MAIN(0.4),
    pe: [6, 14],
    roe: [0.08, 0.15],
    grossMargin: null,
    debt: [0.85, 0.9],
  },
  {
    name: '白酒',
    track: 'consumer',
    suffixes: ['酒业', '酒业股份'],
    boards: MAIN(1),
    pe: [15, 35],
    roe: [0.15, 0.32],
    grossMargin: [0.6, 0.92],
    debt: [0.15, 0.35],
  },
  {
    name: '食品饮料',
    track: 'consumer',
    suffixes: ['食品', '乳业', '饮品'],
    boards: { main: 3, chinext: 1.5, bse: 1 },
    pe: [15, 40],
    roe: [0.08, 0.22],
    grossMargin: [0.25, 0.45],
    debt: [0.2, 0.45],
  },
  {
    name: '家用电器',
    track: 'consumer',
    suffixes: ['电器', '家电'],
    boards: { main: 2, chinext: 1 },
    pe: [10, 25],
    roe: [0.12, 0.25],
    grossMargin: [0.2, 0.35],
    debt: [0.45, 0.65],
  },
  {
    name: '商贸零售',
    track: 'consumer',
    suffixes: ['商业', '百货', '商贸'],
    boards: { main: 1.5, chinext: 0.5 },
    pe: [15, 45],
    roe: [0.04, 0.12],
    grossMargin: [0.15, 0.35],
    debt: [0.4, 0.65],
  },
  {
    name: '医药生物',
    track: 'healthcare',
    suffixes: ['药业', '生物', '医药'],
    boards: ALL(6),
    pe: [20, 70],
    roe: [0.06, 0.2],
    grossMargin: [0.45, 0.85],
    debt: [0.15, 0.45],
  },
  {
    name: '医疗器械',
    track: 'healthcare',
    suffixes: ['医疗', '医疗器械'],
    boards: { main: 2, chinext: 3, star: 3, bse: 1 },
    pe: [20, 60],
    roe: [0.08, 0.22],
    grossMargin: [0.5, 0.8],
    debt: [0.15, 0.4],
  },
  {
    name: '半导体',
    track: 'tech',
    suffixes: ['微电子', '半导体', '芯科'],
    boards: { main: 2, chinext: 3, star: 8, bse: 1 },
    pe: [40, 120],
    roe: [0.04, 0.15],
    grossMargin: [0.3, 0.55],
    debt: [0.2, 0.45],
  },
  {
    name: '计算机',
    track: 'tech',
    suffixes: ['软件', '信息', '数据'],
    boards: { main: 4, chinext: 5, star: 4, bse: 2 },
    pe: [30, 90],
    roe: [0.04, 0.14],
    grossMargin: [0.35, 0.7],
    debt: [0.2, 0.45],
  },
  {
    name: '通信',
    track: 'tech',
    suffixes: ['通信', '光电', '网络'],
    boards: { main: 2, chinext: 2, star: 2, bse: 1 },
    pe: [20, 60],
    roe: [0.06, 0.18],
    grossMargin: [0.25, 0.45],
    debt: [0.25, 0.5],
  },
  {
    name: '电子',
    track: 'tech',
    suffixes: ['电子', '精密', '光学'],
    boards: ALL(5),
    pe: [20, 60],
    roe: [0.06, 0.16],
    grossMargin: [0.15, 0.35],
    debt: [0.3, 0.55],
  },
  {
    name: '传媒',
    track: 'tech',
    suffixes: ['传媒', '文化', '互娱'],
    boards: { main: 2, chinext: 1.5 },
    pe: [25, 70],
    roe: [0.03, 0.12],
    grossMargin: [0.3, 0.6],
    debt: [0.2, 0.45],
  },
  {
    name: '电力设备',
    track: 'energy',
    suffixes: ['电气', '能源', '新能源'],
    boards: ALL(5),
    pe: [15, 45],
    roe: [0.06, 0.18],
    grossMargin: [0.15, 0.32],
    debt: [0.4, 0.65],
  },
  {
    name: '公用事业',
    track: 'energy',
    suffixes: ['电力', '环境', '燃气'],
    boards: MAIN(3),
    pe: [10, 22],
    roe: [0.06, 0.12],
    grossMargin: [0.15, 0.35],
    debt: [0.5, 0.7],
  },
  {
    name: '汽车',
    track: 'industrial',
    suffixes: ['汽车', '汽配', '车业'],
    boards: { main: 3, chinext: 2, star: 0.5, bse: 1 },
    pe: [12, 40],
    roe: [0.06, 0.16],
    grossMargin: [0.15, 0.28],
    debt: [0.45, 0.65],
  },
  {
    name: '机械设备',
    track: 'industrial',
    suffixes: ['机械', '装备', '智能装备'],
    boards: ALL(6),
    pe: [18, 45],
    roe: [0.06, 0.15],
    grossMargin: [0.22, 0.4],
    debt: [0.35, 0.6],
  },
  {
    name: '国防军工',
    track: 'industrial',
    suffixes: ['航天', '航空', '防务'],
    boards: { main: 2, chinext: 1, star: 1.5, bse: 0.5 },
    pe: [35, 90],
    roe: [0.04, 0.12],
    grossMargin: [0.25, 0.45],
    debt: [0.35, 0.6],
  },
  {
    name: '建筑装饰',
    track: 'industrial',
    suffixes: ['建设', '建工', '工程'],
    boards: { main: 2, chinext: 0.5 },
    pe: [6, 15],
    roe: [0.06, 0.12],
    grossMargin: [0.1, 0.2],
    debt: [0.6, 0.78],
  },
  {
    name: '交通运输',
    track: 'industrial',
    suffixes: ['物流', '航运', '港务'],
    boards: { main: 2, chinext: 0.3 },
    pe: [10, 25],
    roe: [0.06, 0.14],
    grossMargin: [0.12, 0.35],
    debt: [0.4, 0.65],
  },
  {
    name: '有色金属',
    track: 'materials',
    suffixes: ['矿业', '有色', '金属'],
    boards: { main: 3, chinext: 0.5, star: 0.3, bse: 0.5 },
    pe: [10, 30],
    roe: [0.08, 0.2],
    grossMargin: [0.1, 0.3],
    debt: [0.4, 0.6],
  },
  {
    name: '基础化工',
    track: 'materials',
    suffixes: ['化工', '化学', '新材'],
    boards: ALL(5),
    pe: [12, 35],
    roe: [0.06, 0.16],
    grossMargin: [0.18, 0.35],
    debt: [0.35, 0.6],
  },
  {
    name: '钢铁建材',
    track: 'materials',
    suffixes: ['钢铁', '建材', '水泥'],
    boards: MAIN(2),
    pe: [8, 20],
    roe: [0.04, 0.12],
    grossMargin: [0.08, 0.25],
    debt: [0.45, 0.65],
  },
  {
    name: '房地产',
    track: 'finance',
    suffixes: ['地产', '置业'],
    boards: MAIN(1),
    pe: [8, 25],
    roe: [0.02, 0.08],
    grossMargin: [0.15, 0.3],
    debt: [0.65, 0.8],
  },
]

export function industryByName(name: string): Industry {
  const found = INDUSTRIES.find((i) => i.name === name)
  if (!found) throw new RangeError(`unknown industry ${name}`)
  return found
}

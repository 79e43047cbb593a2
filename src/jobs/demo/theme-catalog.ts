/** The demo market's themes: track, related industries, customers named in evidence, and segments with products. */
import type { Track } from './industries.js'

export interface SegmentSpec {
  readonly name: string
  readonly products: readonly string[]
}

export interface ThemeSpec {
  readonly name: string
  readonly track: Track
  /** Members come from these industries first. */
  readonly industries: readonly string[]
  readonly customers: readonly string[]
  readonly segments: readonly SegmentSpec[]
}

const seg = (name: string, ...products: string[]): SegmentSpec => ({ name, products })

export const THEMES: readonly ThemeSpec[] = [
  {
    name: '算力',
    track: 'tech',
    industries: ['通信', '计算机', '电子'],
    customers: ['英伟达', '阿里云', '字节跳动'],
    segments: [
      seg('光模块', '800G光模块', '硅光模块'),
      seg('AI服务器', 'AI服务器', 'GPU服务器'),
      seg('液冷', '液冷板', '冷却液分配单元'),
      seg('算力租赁', '智算中心', '算力调度平台'),
    ],
  },
  {
    name: '固态电池',
    track: 'energy',
    industries: ['电力设备', '基础化工', '有色金属'],
    customers: ['宁德时代', '比亚迪', '国轩高科'],
    segments: [
      seg('固态电解质', '硫化物电解质', '氧化物电解质'),
      seg('负极材料', '锂金属负极', '硅碳负极'),
      seg('电池设备', '干法电极设备', '等静压设备'),
    ],
  },
  {
    name: '低空经济',
    track: 'industrial',
    industries: ['国防军工', '机械设备', '汽车', '计算机'],
    customers: ['亿航智能', '峰飞航空', '中国商飞'],
    segments: [
      seg('eVTOL整机', 'eVTOL整机', '工业无人机'),
      seg('飞控与动力', '飞控系统', '航空电机'),
      seg('空管与基建', '低空空管系统', '起降场建设'),
    ],
  },
  {
    name: '创新药',
    track: 'healthcare',
    industries: ['医药生物'],
    customers: ['辉瑞', '默沙东', '阿斯利康'],
    segments: [
      seg('ADC', 'ADC药物', '抗体偶联平台'),
      seg('GLP-1', 'GLP-1多肽', '减重药物'),
      seg('CXO', 'CDMO服务', '临床CRO服务'),
    ],
  },
  {
    name: '机器人',
    track: 'industrial',
    industries: ['机械设备', '电子', '汽车'],
    customers: ['特斯拉', '优必选', '小米'],
    segments: [
      seg('减速器', '谐波减速器', '行星滚柱丝杠'),
      seg('伺服电机', '无框力矩电机', '空心杯电机'),
      seg('灵巧手', '灵巧手', '六维力传感器'),
    ],
  },
  {
    name: '白酒',
    track: 'consumer',
    industries: ['白酒', '食品饮料'],
    customers: ['全国经销商', '头部电商平台', '商超渠道'],
    segments: [
      seg('高端白酒', '高端酱香酒', '浓香型白酒'),
      seg('次高端', '次高端白酒', '光瓶酒'),
      seg('区域酒企', '区域名酒', '低度白酒'),
    ],
  },
  {
    name: '半导体设备',
    track: 'tech',
    industries: ['半导体', '机械设备'],
    customers: ['中芯国际', '长江存储', '华虹半导体'],
    segments: [
      seg('刻蚀', '刻蚀设备', '等离子刻蚀机'),
      seg('薄膜沉积', 'CVD设备', 'ALD设备'),
      seg('量测检测', '量测设备', '缺陷检测设备'),
    ],
  },
  {
    name: '存储芯片',
    track: 'tech',
    industries: ['半导体', '电子'],
    customers: ['长鑫存储', '长江存储', '华为'],
    segments: [
      seg('DRAM', 'DRAM颗粒', 'DDR5内存模组'),
      seg('NAND', '企业级SSD', 'NAND闪存'),
      seg('先进封装', 'HBM封装', '先进封装产能'),
    ],
  },
  {
    name: '光伏',
    track: 'energy',
    industries: ['电力设备', '基础化工'],
    customers: ['隆基绿能', '通威股份', '国家电投'],
    segments: [
      seg('硅料硅片', '多晶硅料', 'N型硅片'),
      seg('电池组件', 'TOPCon电池', 'BC组件'),
      seg('逆变器', '组串式逆变器', '微型逆变器'),
    ],
  },
  {
    name: '储能',
    track: 'energy',
    industries: ['电力设备', '公用事业'],
    customers: ['国家电网', '南方电网', '特斯拉'],
    segments: [
      seg('储能电池', '储能电芯', '储能系统'),
      seg('储能变流器', '储能变流器', '能量管理系统'),
      seg('温控消防', '液冷温控', '储能消防'),
    ],
  },
  {
    name: '风电',
    track: 'energy',
    industries: ['电力设备', '机械设备', '钢铁建材'],
    customers: ['金风科技', '明阳智能', '三峡集团'],
    segments: [
      seg('风机整机', '海上风机', '陆上风机'),
      seg('风电零部件', '风电轴承', '风电叶片'),
      seg('海缆', '海底电缆', '塔筒管桩'),
    ],
  },
  {
    name: '氢能',
    track: 'energy',
    industries: ['电力设备', '基础化工', '机械设备'],
    customers: ['中国石化', '国家能源集团', '亿华通'],
    segments: [
      seg('制氢', '电解槽', '碱性制氢设备'),
      seg('燃料电池', '燃料电池电堆', '膜电极'),
      seg('储运', '储氢瓶', '加氢站设备'),
    ],
  },
  {
    name: '商业航天',
    track: 'industrial',
    industries: ['国防军工', '通信', '电子'],
    customers: ['中国星网', '蓝箭航天', '银河航天'],
    segments: [
      seg('火箭', '液体火箭发动机', '箭体结构件'),
      seg('卫星制造', '卫星平台', '星载相控阵'),
      seg('卫星应用', '卫星互联网终端', '北斗导航芯片'),
    ],
  },
  {
    name: '军工电子',
    track: 'industrial',
    industries: ['国防军工', '电子'],
    customers: ['中航工业', '中国电科', '航天科技'],
    segments: [
      seg('雷达', '相控阵雷达', '雷达组件'),
      seg('特种芯片', '军用FPGA', '特种芯片'),
      seg('连接器', '军用连接器', '线缆组件'),
    ],
  },
  {
    name: '智能驾驶',
    track: 'tech',
    industries: ['汽车', '电子', '计算机'],
    customers: ['比亚迪', '理想汽车', '小鹏汽车'],
    segments: [
      seg('激光雷达', '激光雷达', '毫米波雷达'),
      seg('域控制器', '智驾域控制器', '车载计算平台'),
      seg('线控底盘', '线控制动', '线控转向'),
    ],
  },
  {
    name: '鸿蒙',
    track: 'tech',
    industries: ['计算机', '电子', '通信'],
    customers: ['华为', '荣耀', '中国移动'],
    segments: [
      seg('操作系统', '鸿蒙原生应用', '嵌入式操作系统'),
      seg('智能终端', '鸿蒙智能终端', '智能座舱'),
      seg('开发服务', '鸿蒙应用开发', '适配服务'),
    ],
  },
  {
    name: '数据要素',
    track: 'tech',
    industries: ['计算机', '传媒'],
    customers: ['国家数据局', '地方大数据中心', '三大运营商'],
    segments: [
      seg('数据交易', '数据交易平台', '数据资产评估'),
      seg('数据安全', '数据安全网关', '隐私计算平台'),
      seg('公共数据', '政务数据平台', '城市数据运营'),
    ],
  },
  {
    name: 'AI应用',
    track: 'tech',
    industries: ['计算机', '传媒'],
    customers: ['百度', '腾讯', '月之暗面'],
    segments: [
      seg('大模型', '行业大模型', '多模态模型'),
      seg('AI办公', 'AI办公助手', '智能客服'),
      seg('AI营销', 'AIGC营销', '数字人'),
    ],
  },
  {
    name: '消费电子',
    track: 'tech',
    industries: ['电子', '家用电器'],
    customers: ['苹果', '华为', '小米'],
    segments: [
      seg('折叠屏', '折叠屏铰链', '柔性OLED'),
      seg('AI手机', '手机散热模组', '摄像头模组'),
      seg('可穿戴', 'AI眼镜', '智能手表'),
    ],
  },
  {
    name: '医疗器械',
    track: 'healthcare',
    industries: ['医疗器械'],
    customers: ['三甲医院', '联影医疗', '迈瑞医疗'],
    segments: [
      seg('影像设备', 'CT设备', '超声设备'),
      seg('高值耗材', '心脏支架', '骨科植入物'),
      seg('体外诊断', '化学发光试剂', '分子诊断'),
    ],
  },
  {
    name: '中药',
    track: 'healthcare',
    industries: ['医药生物'],
    customers: ['国药控股', '连锁药店', '基层医疗机构'],
    segments: [seg('品牌中药', '中成药', '名贵中药'), seg('配方颗粒', '中药配方颗粒', '中药饮片')],
  },
  {
    name: '大消费',
    track: 'consumer',
    industries: ['食品饮料', '商贸零售', '家用电器'],
    customers: ['盒马', '永辉超市', '京东'],
    segments: [
      seg('乳制品', '低温奶', '婴幼儿奶粉'),
      seg('休闲食品', '零食量贩', '坚果炒货'),
      seg('免税零售', '免税店', '跨境零售'),
    ],
  },
  {
    name: '高股息',
    track: 'finance',
    industries: ['银行', '公用事业', '交通运输'],
    customers: ['社保基金', '保险资金', '公募基金'],
    segments: [
      seg('银行', '稳定分红', '高股息率'),
      seg('电力', '稳定现金流', '电力分红'),
      seg('港口高速', '港口吞吐', '高速路网'),
    ],
  },
  {
    name: '券商',
    track: 'finance',
    industries: ['证券', '保险'],
    customers: ['个人投资者', '公募基金', '上市公司'],
    segments: [seg('头部券商', '财富管理', '投行业务'), seg('互联网券商', '线上开户', '金融信息服务')],
  },
  {
    name: '稀土永磁',
    track: 'materials',
    industries: ['有色金属', '电子'],
    customers: ['北方稀土', '金力永磁', '特斯拉'],
    segments: [seg('稀土开采', '稀土精矿', '氧化镨钕'), seg('永磁材料', '钕铁硼磁材', '高性能磁钢')],
  },
  {
    name: '黄金',
    track: 'materials',
    industries: ['有色金属'],
    customers: ['上海黄金交易所', '各国央行', '珠宝品牌'],
    segments: [seg('金矿', '黄金开采', '金精矿'), seg('黄金珠宝', '黄金饰品', '投资金条')],
  },
  {
    name: '锂矿',
    track: 'materials',
    industries: ['有色金属', '基础化工'],
    customers: ['宁德时代', '比亚迪', 'LG新能源'],
    segments: [seg('锂资源', '锂辉石', '盐湖提锂'), seg('锂盐', '碳酸锂', '氢氧化锂')],
  },
  {
    name: '新材料',
    track: 'materials',
    industries: ['基础化工', '有色金属', '电子'],
    customers: ['华为', '宁德时代', '中芯国际'],
    segments: [
      seg('电子化学品', '光刻胶', '电子特气'),
      seg('碳纤维', '碳纤维', '复合材料'),
      seg('PEEK', 'PEEK材料', '特种工程塑料'),
    ],
  },
  {
    name: '一带一路',
    track: 'industrial',
    industries: ['建筑装饰', '交通运输', '机械设备'],
    customers: ['中国交建', '中国中铁', '沿线国家政府'],
    segments: [
      seg('基建工程', '海外工程总包', '铁路建设'),
      seg('工程机械', '挖掘机', '起重机'),
      seg('港口航运', '集装箱航运', '港口运营'),
    ],
  },
  {
    name: '跨境电商',
    track: 'consumer',
    industries: ['商贸零售', '传媒', '交通运输'],
    customers: ['亚马逊', 'TikTok Shop', 'Temu'],
    segments: [
      seg('出海品牌', '家居出海', '小家电出海'),
      seg('跨境物流', '海外仓', '跨境物流'),
      seg('电商服务', '电商SaaS', '跨境支付'),
    ],
  },
]

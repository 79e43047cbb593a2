// The stock panel's chart: forward-adjusted candles (red up, green down), volume, MA20/MA60 and the plan's own marks
// (days in main/observe shaded, logic-state changes as ▲), drawn with uPlot (window.uPlot, served from the package).

const UP = '#d0021b'
const DOWN = '#0a8a3a'
const BAND = { main: 'rgba(208, 2, 27, 0.08)', observe: 'rgba(245, 166, 35, 0.16)' }
const STATE_COLOR = { forming: '#1f5fbf', confirmed: '#d0021b', weakening: '#b26a00', broken: '#5f6b7a' }

/** Days the plan put the code in main or observe, and the days its logic state changed, by bar index. */
function marksByIndex(bars, marks) {
  const index = new Map(bars.map((b, i) => [b.date, i]))
  const bands = []
  const changes = []
  for (const m of marks) {
    const i = index.get(m.date)
    if (i === undefined) continue
    if (m.verdict === 'main' || m.verdict === 'observe') bands.push([i, m.verdict])
    if (m.state_since === m.date) changes.push([i, m])
  }
  return { bands, changes }
}

/** Draws the chart into `box` (replacing what was there) and gives the uPlot instance. */
export function drawStockChart(box, stock, { t, volumeText, onCursor }) {
  const bars = stock.bars
  const xs = bars.map((_, i) => i)
  const maxVolume = Math.max(1, ...bars.map((b) => b.volume))
  const { bands, changes } = marksByIndex(bars, stock.marks)
  const step = (u) => (u.bbox.width / Math.max(1, bars.length)) * 0.7

  const drawBands = (u) => {
    const { ctx, bbox } = u
    const half = u.bbox.width / Math.max(1, bars.length) / 2
    ctx.save()
    for (const [i, verdict] of bands) {
      const x = u.valToPos(i, 'x', true)
      ctx.fillStyle = BAND[verdict]
      ctx.fillRect(x - half, bbox.top, half * 2, bbox.height)
    }
    ctx.restore()
  }
  const drawCandles = (u) => {
    const { ctx, bbox } = u
    const width = Math.max(1, step(u))
    ctx.save()
    bars.forEach((b, i) => {
      const x = u.valToPos(i, 'x', true)
      const color = b.close >= b.open ? UP : DOWN
      const [yo, yc, yh, yl] = [b.open, b.close, b.high, b.low].map((v) => u.valToPos(v, 'y', true))
      ctx.strokeStyle = color
      ctx.fillStyle = color
      ctx.lineWidth = Math.max(1, devicePixelRatio)
      ctx.beginPath()
      ctx.moveTo(Math.round(x), yh)
      ctx.lineTo(Math.round(x), yl)
      ctx.stroke()
      ctx.fillRect(x - width / 2, Math.min(yo, yc), width, Math.max(1, Math.abs(yc - yo)))
    })
    for (const [i, m] of changes) {
      const x = u.valToPos(i, 'x', true)
      const y = bbox.top + 4 * devicePixelRatio
      const s = 5 * devicePixelRatio
      ctx.fillStyle = STATE_COLOR[m.logic_state] ?? '#1d2430'
      ctx.beginPath()
      ctx.moveTo(x, y)
      ctx.lineTo(x - s, y + s * 1.6)
      ctx.lineTo(x + s, y + s * 1.6)
      ctx.closePath()
      ctx.fill()
    }
    ctx.restore()
  }

  const lows = bars.map((b) => b.low)
  const highs = bars.map((b) => b.high)
  const lo = Math.min(...lows)
  const hi = Math.max(...highs)
  const pad = (hi - lo) * 0.08 || 1
  const opts = {
    width: Math.max(300, box.clientWidth || 600),
    height: 320,
    legend: { show: true },
    cursor: { drag: { x: false, y: false } },
    scales: {
      x: { time: false, range: [-0.5, bars.length - 0.5] },
      // the bottom quarter holds the volume, so the price scale starts lower than the lowest low
      y: { range: [lo - (hi - lo + pad) / 3, hi + pad] },
      vol: { range: [0, maxVolume * 4] },
    },
    series: [
      { label: t('stock.date'), value: (_u, i) => (i === null || bars[i] === undefined ? '–' : bars[i].date) },
      { label: t('stock.ma20'), stroke: '#1f5fbf', width: 1.5, points: { show: false } },
      { label: t('stock.ma60'), stroke: '#b26a00', width: 1.5, points: { show: false } },
      {
        label: t('stock.volume'),
        scale: 'vol',
        stroke: 'rgba(95, 107, 122, 0.7)',
        fill: 'rgba(95, 107, 122, 0.35)',
        paths: uPlot.paths.bars({ size: [0.7, 40] }),
        points: { show: false },
        value: (_u, v) => volumeText(v),
      },
    ],
    axes: [
      {
        values: (_u, ticks) => ticks.map((i) => (Number.isInteger(i) && bars[i] ? bars[i].date.slice(5) : '')),
      },
      { label: t('stock.price'), size: 56, values: (_u, ticks) => ticks.map((v) => v.toFixed(2)) },
    ],
    hooks: {
      drawClear: [drawBands],
      draw: [drawCandles],
      setCursor: [(u) => onCursor?.(u.cursor.idx ?? bars.length - 1)],
    },
  }
  box.replaceChildren()
  const chart = new uPlot(opts, [xs, bars.map((b) => b.ma20), bars.map((b) => b.ma60), bars.map((b) => b.volume)], box)
  box.dataset.candles = String(bars.length)
  return chart
}

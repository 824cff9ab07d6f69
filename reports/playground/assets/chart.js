// Grouped results as a chart: bars for categories, a line over time for date groupings. ECharts
// is loaded only when a grouped result arrives (it is the page's one large file).
let echarts = null
let chart = null

const NUMERIC = new Set(["integer", "currency", "float"])

export const measuresOf = (fields) => fields.map((f, i) => ({ ...f, index: i })).filter((f, i) => i > 0 && NUMERIC.has(f.type))

/**
 * Draws rows (group_label, then summary values) with the measure at `index`. The container's
 * `data-marks` says how many bars or points the library rendered, once it finished drawing.
 */
export async function drawChart(container, figure, fields, rows, index) {
  echarts ??= await import("./echarts.esm.min.mjs")
  chart ??= echarts.init(container, null, { renderer: "canvas" })
  const overTime = fields[0]?.type === "date" || fields[0]?.type === "datetime"
  const points = rows.map((row) => [row[0] === null ? "(none)" : String(row[0]), row[index] === null ? 0 : Number(row[index])])
  // A line reads left to right in time, whatever the table's sort.
  if (overTime) points.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  const measure = fields[index].name
  container.dataset.marks = ""
  // The figure says what is drawn; the library's own aria text on the chart lists the values.
  figure.setAttribute("aria-label", `${overTime ? "Line" : "Bar"} chart of ${measure} by ${fields[0].name}, ${points.length} ${overTime ? "points" : "bars"}`)
  chart.off("finished")
  chart.on("finished", () => {
    // Marks the library drew: each data item's own graphic element (a bar, or a line's symbol).
    const data = chart.getModel().getSeriesByIndex(0)?.getData()
    let drawn = 0
    if (data) for (let i = 0; i < data.count(); i++) if (data.getItemGraphicEl(i)) drawn++
    container.dataset.marks = String(drawn)
  })
  chart.setOption({
    animation: false,
    aria: { enabled: true },
    grid: { left: 64, right: 24, top: 24, bottom: 64 },
    tooltip: { trigger: "axis" },
    xAxis: { type: "category", data: points.map((p) => p[0]), axisLabel: { rotate: points.length > 8 ? 45 : 0 } },
    yAxis: { type: "value", name: measure },
    series: [
      overTime
        ? { type: "line", name: measure, data: points.map((p) => p[1]), showSymbol: true, showAllSymbol: true, symbol: "circle", symbolSize: 7 }
        : { type: "bar", name: measure, data: points.map((p) => p[1]) }
    ]
  }, { notMerge: true })
  chart.resize()
}

export function clearChart() {
  chart?.clear()
}

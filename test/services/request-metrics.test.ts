import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { registerRequestMetrics } from '../../src/services/request-metrics.js'

describe('request metrics tallied per label set', () => {
  it("expose prom-client's counter and cumulative histogram lines", async () => {
    const registry = new Registry()
    const observe = registerRequestMetrics(registry, [0.001, 0.005, 0.25])
    observe('/plan', 'GET', 200, 0.003)
    observe('/plan', 'GET', 200, 0.005) // on a bound: counted in that bucket (le)
    observe('/plan', 'GET', 200, 0.2)
    observe('/plan', 'GET', 404, 3)
    observe('/plan', 'HEAD', 200, 0.003)
    observe('/logic_state', 'GET', 200, 0.003)
    const text = await registry.metrics()
    const labels = 'route="/plan",method="GET",status="200"'
    expect(text).toContain(`stockplan_http_requests_total{${labels}} 3`)
    expect(text).toContain(`stockplan_http_requests_total{route="/plan",method="GET",status="404"} 1`)
    expect(text).toContain(`stockplan_http_requests_total{route="/plan",method="HEAD",status="200"} 1`)
    expect(text).toContain(`stockplan_http_requests_total{route="/logic_state",method="GET",status="200"} 1`)
    expect(text).toContain(`stockplan_http_request_duration_seconds_bucket{${labels},le="0.001"} 0`)
    expect(text).toContain(`stockplan_http_request_duration_seconds_bucket{${labels},le="0.005"} 2`)
    expect(text).toContain(`stockplan_http_request_duration_seconds_bucket{${labels},le="0.25"} 3`)
    expect(text).toContain(`stockplan_http_request_duration_seconds_bucket{${labels},le="+Inf"} 3`)
    expect(text).toContain(
      `stockplan_http_request_duration_seconds_bucket{route="/plan",method="GET",status="404",le="0.25"} 0`,
    )
    expect(text).toContain(
      `stockplan_http_request_duration_seconds_bucket{route="/plan",method="GET",status="404",le="+Inf"} 1`,
    )
    expect(text).toMatch(new RegExp(`stockplan_http_request_duration_seconds_sum\\{${labels}\\} 0\\.208`))
    expect(text).toContain(`stockplan_http_request_duration_seconds_count{${labels}} 3`)
    expect(text).toContain('# TYPE stockplan_http_request_duration_seconds histogram')
    expect(text).toContain('# TYPE stockplan_http_requests_total counter')
  })
})

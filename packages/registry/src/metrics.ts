/**
 * In-process metrics rendered in the Prometheus text exposition format 0.0.4
 * (spec/registry.md "Operations"). Label values are route names and error codes, never package
 * names or tokens, so cardinality stays bounded and nothing about private packages is named.
 * (Written here rather than with prom-client: seven series do not justify a dependency.)
 *
 * Series:
 *   ctxpkg_http_requests_total{method,route,status}       counter
 *   ctxpkg_http_request_duration_seconds{route}          histogram (buckets below, seconds)
 *   ctxpkg_publishes_total                               counter
 *   ctxpkg_publish_rejections_total{code}                counter
 *   ctxpkg_yanks_total{action}                           counter (yank | unyank)
 *   ctxpkg_process_resident_memory_bytes                 gauge
 */

/** Histogram bucket upper bounds in seconds. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labels(obj: Record<string, string>): string {
  const keys = Object.keys(obj).sort();
  return keys.length === 0 ? '' : `{${keys.map((k) => `${k}="${escapeLabel(obj[k])}"`).join(',')}}`;
}

export class Metrics {
  private readonly requests = new Map<string, number>();
  private readonly latency = new Map<string, Histogram>();
  private readonly rejections = new Map<string, number>();
  private readonly yanks = new Map<string, number>();
  private publishes = 0;
  /** `method route status` → rendered label set (bounded: routes and statuses are finite). */
  private readonly labelCache = new Map<string, string>();

  /** Count one answered request; `seconds` is the handler's wall time. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const raw = `${method} ${route} ${status}`;
    let key = this.labelCache.get(raw);
    if (key === undefined) {
      key = labels({ method, route, status: String(status) });
      this.labelCache.set(raw, key);
    }
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    let h = this.latency.get(route);
    if (!h) {
      h = { counts: LATENCY_BUCKETS.map(() => 0), sum: 0, count: 0 };
      this.latency.set(route, h);
    }
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) if (seconds <= LATENCY_BUCKETS[i]) h.counts[i]++;
    h.sum += seconds;
    h.count++;
  }

  publishAccepted(): void {
    this.publishes++;
  }

  /** Count a refused publish by its error code. */
  publishRejected(code: string): void {
    this.rejections.set(code, (this.rejections.get(code) ?? 0) + 1);
  }

  yankChanged(action: 'yank' | 'unyank'): void {
    this.yanks.set(action, (this.yanks.get(action) ?? 0) + 1);
  }

  /** The exposition text; `gauges.rssBytes` is sampled by the caller. */
  render(gauges: { rssBytes: number }): string {
    const out: string[] = [];
    out.push('# HELP ctxpkg_http_requests_total HTTP requests answered, by method, route pattern and status.');
    out.push('# TYPE ctxpkg_http_requests_total counter');
    for (const k of [...this.requests.keys()].sort()) out.push(`ctxpkg_http_requests_total${k} ${this.requests.get(k)}`);
    out.push('# HELP ctxpkg_http_request_duration_seconds Request handling time by route pattern.');
    out.push('# TYPE ctxpkg_http_request_duration_seconds histogram');
    for (const route of [...this.latency.keys()].sort()) {
      const h = this.latency.get(route) as Histogram;
      LATENCY_BUCKETS.forEach((le, i) => {
        out.push(`ctxpkg_http_request_duration_seconds_bucket${labels({ route, le: String(le) })} ${h.counts[i]}`);
      });
      out.push(`ctxpkg_http_request_duration_seconds_bucket${labels({ route, le: '+Inf' })} ${h.count}`);
      out.push(`ctxpkg_http_request_duration_seconds_sum${labels({ route })} ${h.sum}`);
      out.push(`ctxpkg_http_request_duration_seconds_count${labels({ route })} ${h.count}`);
    }
    out.push('# HELP ctxpkg_publishes_total Accepted publishes.');
    out.push('# TYPE ctxpkg_publishes_total counter');
    out.push(`ctxpkg_publishes_total ${this.publishes}`);
    out.push('# HELP ctxpkg_publish_rejections_total Refused publishes by error code.');
    out.push('# TYPE ctxpkg_publish_rejections_total counter');
    for (const code of [...this.rejections.keys()].sort()) {
      out.push(`ctxpkg_publish_rejections_total${labels({ code })} ${this.rejections.get(code)}`);
    }
    out.push('# HELP ctxpkg_yanks_total Yank state changes.');
    out.push('# TYPE ctxpkg_yanks_total counter');
    for (const action of [...this.yanks.keys()].sort()) out.push(`ctxpkg_yanks_total${labels({ action })} ${this.yanks.get(action)}`);
    out.push('# HELP ctxpkg_process_resident_memory_bytes Resident set size of the server process.');
    out.push('# TYPE ctxpkg_process_resident_memory_bytes gauge');
    out.push(`ctxpkg_process_resident_memory_bytes ${gauges.rssBytes}`);
    return out.join('\n') + '\n';
  }
}

/**
 * The request-duration histogram (`fpa_http_request_duration_seconds`), counted by hand and
 * handed to the prom-client registry as a metric of its own. Every request observes it, the
 * idle polls of a whole fleet included, and prom-client's histogram validates and hashes the
 * label object and allocates a closure on each observation: about 5 % of an idle poll's CPU in
 * a profile (bench/polls.ts). Here an observation is three map look-ups by the label values
 * (one by a key joined from them cost as much again: the key is built and hashed each time)
 * and a few additions, and the series are written out in the Prometheus text format at scrape
 * time, after the registry's own metrics (metrics.ts).
 */

export interface RequestLabels {
  method: string;
  route: string;
  status: string;
}

interface Series {
  labels: RequestLabels;
  /** Observations at or below each bound, per bound (not cumulative: summed at scrape). */
  counts: number[];
  sum: number;
  count: number;
}

export class RequestDurations {
  /** By route, then method, then status: looked up with the label values as they come, no key built per request. */
  private readonly series = new Map<string, Map<string, Map<string, Series>>>();

  constructor(
    readonly name: string,
    readonly help: string,
    /** Upper bounds in seconds, ascending. */
    private readonly bounds: readonly number[],
  ) {}

  observe(labels: RequestLabels, seconds: number): void {
    if (!Number.isFinite(seconds)) return;
    let methods = this.series.get(labels.route);
    if (!methods) {
      methods = new Map();
      this.series.set(labels.route, methods);
    }
    let statuses = methods.get(labels.method);
    if (!statuses) {
      statuses = new Map();
      methods.set(labels.method, statuses);
    }
    let series = statuses.get(labels.status);
    if (!series) {
      series = { labels: { ...labels }, counts: this.bounds.map(() => 0), sum: 0, count: 0 };
      statuses.set(labels.status, series);
    }
    // The first bound that holds it (none past the last: only the count and sum have it).
    for (let bucket = 0; bucket < this.bounds.length; bucket++) {
      if (seconds <= this.bounds[bucket]!) {
        series.counts[bucket]! += 1;
        break;
      }
    }
    series.sum += seconds;
    series.count += 1;
  }

  /** The histogram in the Prometheus text format: cumulative buckets (`+Inf` = the count), the sum and the count of each series. */
  text(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const { labels, counts, sum, count } of this.all()) {
      const base = `method="${escapeLabel(labels.method)}",route="${escapeLabel(labels.route)}",status="${escapeLabel(labels.status)}"`;
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += counts[i]!;
        lines.push(`${this.name}_bucket{le="${bound}",${base}} ${cumulative}`);
      });
      lines.push(`${this.name}_bucket{le="+Inf",${base}} ${count}`, `${this.name}_sum{${base}} ${sum}`, `${this.name}_count{${base}} ${count}`);
    }
    return `${lines.join('\n')}\n`;
  }

  private *all(): Generator<Series> {
    for (const methods of this.series.values()) for (const statuses of methods.values()) yield* statuses.values();
  }
}

/** A label value as the text format wants it: backslash, double quote and newline escaped. */
function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

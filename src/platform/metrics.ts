/**
 * Prometheus metrics of one instance (`/metrics`), on a registry of its own so two instances in
 * one process (tests, a host embedding twice) never share series. Counters count what this
 * instance did; gauges are read from the database at scrape time by the collectors the modules
 * register, so every instance reports the same shared state.
 */
import { Counter, Gauge, Registry } from 'prom-client';
import { RequestDurations } from './request-durations';

export class Metrics {
  readonly registry = new Registry();

  readonly punchesIngested = new Counter({
    name: 'fpa_punches_ingested_total',
    help: 'Punches stored from terminal uploads (duplicates not counted).',
    registers: [this.registry],
  });

  readonly webhookDeliveries = new Counter({
    name: 'fpa_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (delivered, failed, dead).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  /** Observed by every request: counted outside prom-client (request-durations.ts), written out after the registry's metrics. */
  readonly httpDuration = new RequestDurations(
    'fpa_http_request_duration_seconds',
    'Time to answer an HTTP request, by method, route (as registered) and status.',
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  );

  /** A gauge read at scrape time: `collect` returns the current value per label set. */
  gauge(name: string, help: string, labelNames: readonly string[], collect: () => Promise<{ labels?: Record<string, string>; value: number }[]>): void {
    new Gauge({
      name,
      help,
      labelNames: [...labelNames],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const { labels, value } of await collect()) {
          if (labels) this.set(labels, value);
          else this.set(value);
        }
      },
    });
  }

  async text(): Promise<string> {
    const registered = await this.registry.metrics();
    return `${registered.endsWith('\n') ? registered : `${registered}\n`}${this.httpDuration.text()}`;
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

import { describe, expect, test } from 'bun:test';
import { Metrics } from '../../src/platform/metrics';
import { RequestDurations } from '../../src/platform/request-durations';

const NAME = 'fpa_http_request_duration_seconds';

function series(text: string, labels: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.includes(labels)) continue;
    const [key, value] = [line.slice(0, line.lastIndexOf(' ')), line.slice(line.lastIndexOf(' ') + 1)];
    out[key.replace(`,${labels}`, '').replace(`{${labels}}`, '')] = Number(value);
  }
  return out;
}

describe('request durations', () => {
  test('buckets are cumulative, +Inf is the count, with the sum, per label set', () => {
    const durations = new RequestDurations(NAME, 'Time to answer.', [0.01, 0.1, 1]);
    const poll = { method: 'GET', route: '/iclock/getrequest', status: '200' };
    for (const seconds of [0.005, 0.005, 0.05, 0.5, 3]) durations.observe(poll, seconds);
    durations.observe({ method: 'POST', route: '/iclock/cdata', status: '503' }, 0.2);
    const text = durations.text();
    expect(text).toStartWith(`# HELP ${NAME} Time to answer.\n# TYPE ${NAME} histogram\n`);
    const got = series(text, 'method="GET",route="/iclock/getrequest",status="200"');
    expect(got).toEqual({
      [`${NAME}_bucket{le="0.01"}`]: 2,
      [`${NAME}_bucket{le="0.1"}`]: 3,
      [`${NAME}_bucket{le="1"}`]: 4,
      [`${NAME}_bucket{le="+Inf"}`]: 5,
      [`${NAME}_sum`]: 3.56,
      [`${NAME}_count`]: 5,
    });
    expect(series(text, 'method="POST",route="/iclock/cdata",status="503"')[`${NAME}_count`]).toBe(1);
  });

  test('an observation that is not a number is not counted; label values are escaped', () => {
    const durations = new RequestDurations(NAME, 'h', [1]);
    durations.observe({ method: 'GET', route: '/a"b\\c\nd', status: '200' }, Number.NaN);
    expect(durations.text()).not.toContain('_count');
    durations.observe({ method: 'GET', route: '/a"b\\c\nd', status: '200' }, 0.5);
    expect(durations.text()).toContain('route="/a\\"b\\\\c\\nd"');
  });

  test('the scrape carries the registry metrics and then the histogram', async () => {
    const metrics = new Metrics();
    metrics.punchesIngested.inc(3);
    metrics.httpDuration.observe({ method: 'GET', route: '/healthz', status: '200' }, 0.002);
    const text = await metrics.text();
    expect(text).toContain('fpa_punches_ingested_total 3\n');
    expect(text).toContain(`${NAME}_bucket{le="0.0025",method="GET",route="/healthz",status="200"} 1\n`);
    expect(text.split('\n').filter((l) => l.startsWith(`# TYPE ${NAME} `))).toHaveLength(1);
  });
});

/** `diagnostics/`: what an installer must fix, each with a plain-words fix. */
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { DiagnosticList } from './model';
import type { Diagnostics } from './service';

export function diagnosticRoutes(http: Http, diagnostics: Diagnostics) {
  return adminRouter(http, 'diagnostics').get(
    '/diagnostics',
    async ({ admin }) => ({ results: await diagnostics.list(admin), as_of: new Date(http.runtime.clock.now()).toISOString() }),
    {
      response: { 200: DiagnosticList, ...errors() },
      detail: {
        summary:
          'What an installer must fix: unknown or waiting terminals, silent ones, stuck or failing commands, clocks, time zones, fingerprints that cannot reach a terminal, refused keys, new addresses, registrations refused because too many terminals wait',
        tags: ['operations'],
      },
    },
  );
}

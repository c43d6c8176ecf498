/** `devices/{sn}/commands/` (docs/api.md): a terminal's command queue. */
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { type DeviceService, SerialParams } from '../devices';
import { CommandList } from './model';
import type { CommandService } from './service';

export function commandRoutes(http: Http, deps: { devices: DeviceService; commands: CommandService }) {
  const { devices, commands } = deps;
  return adminRouter(http, 'device-commands').get(
    '/devices/:serial/commands',
    async ({ params, query }) =>
      commands.list((await devices.get(params.serial)).id, { status: query.status, cursor: query.cursor, limit: query.limit ?? 100 }),
    {
      params: SerialParams,
      query: CommandList.query,
      response: { 200: CommandList.response, ...errors('not_found', 'invalid_cursor') },
      detail: { summary: 'Command queue of a terminal', tags: ['devices'] },
    },
  );
}

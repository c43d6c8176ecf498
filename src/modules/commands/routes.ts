/** `devices/{sn}/commands/` (docs/api.md): a terminal's command queue, operators' commands, cancel and retry. */
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { type DeviceService, SerialParams } from '../devices';
import { CommandList, CommandParams, DeviceCommand, OperatorCommandBody } from './model';
import type { CommandService } from './service';

const tags = ['devices'];

export function commandRoutes(http: Http, deps: { devices: DeviceService; commands: CommandService }) {
  const { devices, commands } = deps;
  // A terminal outside the caller's areas does not exist (404) for any of these routes.
  return adminRouter(http, 'device-commands')
    .onBeforeHandle(({ params, scope }) => devices.guardSerial(params, scope))
    .get(
      '/devices/:serial/commands',
      async ({ params, query, scope }) =>
        commands.operator.list(
          (await devices.get(params.serial)).id,
          { status: query.status, order: query.order, cursor: query.cursor, limit: query.limit ?? 100 },
          scope,
        ),
      {
        params: SerialParams,
        query: CommandList.query,
        response: { 200: CommandList.response, ...errors('not_found', 'invalid_cursor') },
        detail: { summary: 'Command queue of a terminal', tags },
      },
    )
    .post(
      '/devices/:serial/commands',
      async ({ params, body, admin, scope, set }) => {
        const command = await commands.operator.queueForOperator(await devices.get(params.serial), body, admin.by, scope);
        set.status = 201;
        return command;
      },
      {
        params: SerialParams,
        body: OperatorCommandBody,
        response: { 201: DeviceCommand, ...errors('not_found', 'confirmation_required', 'raw_commands_disabled') },
        detail: { summary: 'Queue an operator’s command: reboot, set time, info, query users, re-upload logs, clear logs or data, raw', tags },
      },
    )
    .post(
      '/devices/:serial/commands/:id/cancel',
      async ({ params, admin, scope }) => commands.operator.cancel((await devices.get(params.serial)).id, Number(params.id), admin.by, scope),
      {
        params: CommandParams,
        response: { 200: DeviceCommand, ...errors('not_found', 'conflict') },
        detail: { summary: 'Cancel a pending or sent command', tags },
      },
    )
    .post(
      '/devices/:serial/commands/:id/retry',
      async ({ params, admin, scope }) => commands.operator.retry(await devices.get(params.serial), Number(params.id), admin.by, scope),
      {
        params: CommandParams,
        response: { 200: DeviceCommand, ...errors('not_found', 'conflict') },
        detail: { summary: 'Send a failed or expired command again', tags },
      },
    );
}

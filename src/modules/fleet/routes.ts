/** `devices/{sn}/users/` and `devices/{sn}/resync/` (docs/api.md, "Fleet: terminals and server agree"). */

import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { DeviceCommand } from '../commands';
import { type DeviceService, SerialParams } from '../devices';
import { Enrollee, type EnrolleeService } from '../enrollees';
import { AdoptBody, ResyncBody, Resynced, TerminalUserList, TerminalUserParams } from './model';
import type { Fleet } from './service';

const tags = ['devices'];

export function fleetRoutes(http: Http, deps: { fleet: Fleet; enrollees: EnrolleeService; devices: DeviceService }) {
  const { fleet, enrollees, devices } = deps;
  // A terminal outside the caller's areas does not exist (404) for any of these routes.
  return adminRouter(http, 'fleet')
    .onBeforeHandle(({ params, scope }) => devices.guardSerial(params, scope))
    .get('/devices/:serial/users', ({ params, query, scope }) => fleet.users(params.serial, scope, { cursor: query.cursor, limit: query.limit ?? 100 }), {
      params: SerialParams,
      query: TerminalUserList.query,
      response: { 200: TerminalUserList.response, ...errors('not_found', 'invalid_cursor') },
      detail: {
        summary: 'The users a terminal holds, as it last reported them, with the enrollee each is and any conflict; in numeric PIN order, a page at a time',
        tags,
      },
    })
    .post(
      '/devices/:serial/users/:pin/adopt',
      async ({ params, body, admin, scope, set }) => {
        const person = await fleet.adopt(params.serial, params.pin, body, admin.by, scope);
        set.status = 201;
        return enrollees.views.viewOne(person);
      },
      {
        params: TerminalUserParams,
        body: AdoptBody,
        response: { 201: Enrollee, ...errors('not_found', 'conflict', 'invalid_pin', 'unknown_employee', 'employee_inactive', 'unknown_area') },
        detail: { summary: 'Adopt a terminal’s own user as an enrollee with the same PIN; their punches on that terminal count for the enrollee', tags },
      },
    )
    .delete(
      '/devices/:serial/users/:pin',
      async ({ params, admin, set }) => {
        const command = await fleet.removeUser(params.serial, params.pin, admin.by);
        set.status = 202;
        return command;
      },
      {
        params: TerminalUserParams,
        response: { 202: DeviceCommand, ...errors('not_found', 'conflict') },
        detail: { summary: 'Remove a terminal’s own user from it (the queued delete); an enrollee with that PIN who belongs there is sent afterwards', tags },
      },
    )
    .post('/devices/:serial/resync', async ({ params, body, admin }) => fleet.resync(params.serial, { full: body?.full }, admin.by), {
      params: SerialParams,
      body: ResyncBody,
      response: { 200: Resynced, ...errors('not_found', 'conflict') },
      detail: {
        summary:
          'Queue every in-scope user and template to the terminal again and delete the enrollees outside its scope from it; `full` also removes its own users',
        tags,
      },
    });
}

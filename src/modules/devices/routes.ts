/** `devices/` (docs/api.md): list, read, change, approve and disable terminals. */

import { Elysia, t } from 'elysia';
import { FpaError } from '../../platform/errors';
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { canonicalTimeZone } from '../../platform/time/zone';
import {
  Device,
  DeviceApprove,
  DeviceConfirmAddress,
  DeviceCreate,
  DeviceDetail,
  DeviceKey,
  DeviceKeyIssued,
  DeviceList,
  DevicePatch,
  KeyParams,
  SerialParams,
} from './model';
import type { DeviceService } from './service';

const tags = ['devices'];

export function deviceRoutes(http: Http, devices: DeviceService) {
  return new Elysia({ name: 'fpa-device-routes', seed: http.runtime.instanceId })
    .use(readRoutes(http, devices))
    .use(changeRoutes(http, devices))
    .use(addRemoveRoutes(http, devices))
    .use(keyRoutes(http, devices));
}

/** A router of terminals: one outside the caller's areas does not exist (404) for any of its routes. */
function terminalRouter(http: Http, name: string, devices: DeviceService) {
  return adminRouter(http, name).onBeforeHandle(({ params, scope }) => devices.guardSerial(params, scope));
}

function readRoutes(http: Http, devices: DeviceService) {
  const { views } = devices;
  return terminalRouter(http, 'devices', devices)
    .get('/devices', ({ query, scope }) => views.list({ status: query.status, cursor: query.cursor, limit: query.limit ?? 100 }, scope), {
      query: DeviceList.query,
      response: { 200: DeviceList.response, ...errors('invalid_cursor') },
      detail: { summary: 'List terminals', tags },
    })
    .get('/devices/:serial', ({ params, scope }) => views.detail(params.serial, scope), {
      params: SerialParams,
      response: { 200: DeviceDetail, ...errors('not_found') },
      detail: { summary: 'One terminal with pending commands, templates present and recent events', tags },
    });
}

/**
 * A given time zone as the tz database spells it (`europe/berlin` is stored `Europe/Berlin`), or a
 * validation_error: only IANA names, never an offset such as `+02:00` (a terminal's zone must
 * know its DST rules).
 */
function zoneOf(body: { time_zone?: string | null }): { time_zone?: string | null } {
  if (!body.time_zone) return {};
  const canonical = canonicalTimeZone(body.time_zone);
  if (canonical === null) {
    throw new FpaError('validation_error', 'time_zone must be an IANA time zone name such as Europe/Berlin (an offset is none: Etc/GMT-2 is UTC+2)', {
      field: 'time_zone',
    });
  }
  return { time_zone: canonical };
}

/** A terminal changed: its settings, approved, its new address confirmed, disabled. */
function changeRoutes(http: Http, devices: DeviceService) {
  const { views, administration } = devices;
  return terminalRouter(http, 'device-changes', devices)
    .patch(
      '/devices/:serial',
      async ({ params, body, admin, scope }) => {
        return views.viewOne(await administration.updateDevice(params.serial, { ...body, ...zoneOf(body) }, admin.by, scope));
      },
      {
        params: SerialParams,
        body: DevicePatch,
        response: { 200: Device, ...errors('not_found') },
        detail: { summary: 'Change time zone, areas, name or algorithm version; enrollment station: callers limited to no area only', tags },
      },
    )
    .post(
      '/devices/:serial/approve',
      async ({ params, body, admin, scope }) => views.viewOne(await administration.approveDevice(params.serial, { by: admin.by, areas: body?.areas, scope })),
      {
        params: SerialParams,
        body: DeviceApprove,
        response: { 200: Device, ...errors('not_found', 'device_not_pending', 'unknown_area') },
        detail: { summary: 'Approve a pending terminal; every in-scope enrollee is backfilled', tags },
      },
    )
    .post(
      '/devices/:serial/confirm-address',
      async ({ params, body, admin, scope }) => views.viewOne(await devices.identity.confirmAddress(params.serial, body.address, admin.by, scope)),
      {
        params: SerialParams,
        body: DeviceConfirmAddress,
        response: { 200: Device, ...errors('not_found', 'conflict', 'unknown_area', 'forbidden') },
        detail: {
          summary:
            'Confirm the new address a terminal connects from, naming the address checked: it becomes the pinned one, and users, cards and templates flow to it again',
          tags,
        },
      },
    )
    .post(
      '/devices/:serial/disable',
      async ({ params, admin, scope }) => views.viewOne(await administration.disableDevice(params.serial, { by: admin.by, scope })),
      {
        params: SerialParams,
        response: { 200: Device, ...errors('not_found') },
        detail: { summary: 'Disable a terminal', tags },
      },
    );
}

/** A terminal added by hand before it connects (pre-registered), or removed. */
function addRemoveRoutes(http: Http, devices: DeviceService) {
  const { views, administration } = devices;
  return terminalRouter(http, 'device-add-remove', devices)
    .post(
      '/devices',
      async ({ body, admin, scope, set }) => {
        const row = await devices.registration.preRegister({ ...body, ...zoneOf(body) }, admin.by, scope);
        set.status = 201;
        return views.viewOne(row);
      },
      {
        body: DeviceCreate,
        response: { 201: Device, ...errors('conflict', 'unknown_area') },
        detail: {
          summary: 'Pre-register a terminal: approved before it connects, pinned to the address it first connects from, asked for its users then backfilled',
          tags,
        },
      },
    )
    .delete(
      '/devices/:serial',
      async ({ params, admin, scope, set }) => {
        await administration.remove(params.serial, admin.by, scope);
        set.status = 204;
      },
      {
        params: SerialParams,
        response: { 204: t.Void(), ...errors('not_found') },
        detail: { summary: 'Remove a terminal: its unfinished commands are cancelled except the deletes it owes, its punches stay', tags },
      },
    );
}

/** A terminal's communication keys. */
function keyRoutes(http: Http, devices: DeviceService) {
  const { keys } = devices;
  return terminalRouter(http, 'device-keys', devices)
    .get('/devices/:serial/keys', async ({ params }) => ({ results: await keys.list(params.serial), next_cursor: null }), {
      params: SerialParams,
      response: { 200: t.Object({ results: t.Array(DeviceKey), next_cursor: t.Null() }), ...errors('not_found') },
      detail: { summary: 'Communication keys of a terminal (never the keys themselves)', tags },
    })
    .post(
      '/devices/:serial/keys',
      async ({ params, admin, scope, set }) => {
        const issued = await keys.issue(params.serial, admin.by, scope);
        set.status = 201;
        return issued;
      },
      {
        params: SerialParams,
        response: { 201: DeviceKeyIssued, ...errors('not_found', 'forbidden') },
        detail: { summary: 'Issue a communication key; from then on the terminal must present one of its keys', tags },
      },
    )
    .delete(
      '/devices/:serial/keys/:id',
      async ({ params, admin, scope, set }) => {
        await keys.revoke(params.serial, params.id, admin.by, scope);
        set.status = 204;
      },
      {
        params: KeyParams,
        response: { 204: t.Void(), ...errors('not_found', 'forbidden') },
        detail: { summary: 'Revoke a communication key', tags },
      },
    );
}

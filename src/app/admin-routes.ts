/**
 * Administrator endpoints for devices, employees, enrollees, consent, template metadata and
 * jobs (API.md). Each route translates HTTP to one service call; the rules live in the
 * services.
 */
import { and, asc, eq, gt, ne } from 'drizzle-orm';
import { t } from 'elysia';
import type { Core } from './core';
import { deviceCommands, devices, employees, enrollees } from './schema';
import { DEVICE_STATUSES } from './schema';
import { adminRouter, limitOf } from '../platform/http/router';
import { FpaError } from '../platform/errors';
import { pageOf, readCursor } from '../platform/http/paging';
import { isKnownTimeZone } from '../platform/config/check';

const Areas = t.Optional(t.Array(t.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 }));

export function deviceRoutes(core: Core) {
  const { devices: service, ctx } = core;
  return adminRouter(core, 'admin-devices')
    .get('/devices', async ({ query }) => {
      const limit = limitOf(query);
      const after = readCursor(query.cursor);
      const status = query.status;
      if (status && !(DEVICE_STATUSES as readonly string[]).includes(status)) {
        throw new FpaError('validation_error', `status must be one of ${DEVICE_STATUSES.join(', ')}`, { field: 'status' });
      }
      const conditions = [];
      if (status) conditions.push(eq(devices.status, status as (typeof DEVICE_STATUSES)[number]));
      if (after !== null) conditions.push(gt(devices.serialNumber, String(after)));
      const rows = await ctx.db.orm
        .select()
        .from(devices)
        .where(conditions.length ? and(...conditions) : undefined)
        .orderBy(asc(devices.serialNumber))
        .limit(limit + 1);
      const views = await service.view(ctx.db.orm, rows.slice(0, limit));
      return pageOf(rows, limit, (r) => r.serialNumber, () => views);
    })
    .get('/devices/:serial', ({ params }) => service.detail(params.serial))
    .patch(
      '/devices/:serial',
      async ({ params, body, admin }) => {
        if (body.time_zone && !isKnownTimeZone(body.time_zone)) {
          throw new FpaError('validation_error', 'time_zone must be an IANA time zone', { field: 'time_zone' });
        }
        const row = await service.updateDevice(params.serial, body, admin.by);
        return (await service.view(ctx.db.orm, [row]))[0];
      },
      {
        body: t.Object(
          {
            time_zone: t.Optional(t.Union([t.String({ minLength: 1, maxLength: 64 }), t.Null()])),
            areas: Areas,
            name: t.Optional(t.Union([t.String({ maxLength: 200 }), t.Null()])),
            algorithm_version: t.Optional(t.Union([t.String({ minLength: 1, maxLength: 32 }), t.Null()])),
          },
          { additionalProperties: false },
        ),
      },
    )
    .post(
      '/devices/:serial/approve',
      async ({ params, body, admin }) => {
        const row = await service.approveDevice(params.serial, { by: admin.by, areas: body?.areas });
        return (await service.view(ctx.db.orm, [row]))[0];
      },
      { body: t.Optional(t.Object({ areas: Areas }, { additionalProperties: false })) },
    )
    .post('/devices/:serial/disable', async ({ params, admin }) => {
      const row = await service.disableDevice(params.serial, { by: admin.by });
      return (await service.view(ctx.db.orm, [row]))[0];
    })
    .get('/devices/:serial/commands', async ({ params, query }) => {
      const device = await service.get(params.serial);
      const limit = limitOf(query);
      const after = readCursor(query.cursor);
      const conditions = [eq(deviceCommands.deviceId, device.id)];
      if (query.status) conditions.push(eq(deviceCommands.status, query.status as 'pending'));
      if (after !== null) conditions.push(gt(deviceCommands.id, Number(after)));
      const rows = await ctx.db.orm
        .select()
        .from(deviceCommands)
        .where(and(...conditions))
        .orderBy(asc(deviceCommands.id))
        .limit(limit + 1);
      return pageOf(rows, limit, (r) => r.id, (page) =>
        page.map((c) => ({
          id: c.id,
          kind: c.kind,
          status: c.status,
          attempts: c.attempts,
          created_at: new Date(c.createdAt).toISOString(),
          sent_at: c.sentAt ? new Date(c.sentAt).toISOString() : null,
          completed_at: c.completedAt ? new Date(c.completedAt).toISOString() : null,
          expires_at: new Date(c.expiresAt).toISOString(),
          return_code: c.returnCode,
          result: c.result,
          // The payload holds references (PIN, finger), never template bytes.
          payload: c.payload,
        })),
      );
    });
}

export function employeeRoutes(core: Core) {
  const { ctx } = core;
  const builtinOnly = () => {
    if (ctx.employees.model !== 'builtin') {
      throw new FpaError('not_found', 'employees come from the host application here, not from this service', {});
    }
  };
  return adminRouter(core, 'admin-employees')
    .get('/employees', async ({ query }) => {
      builtinOnly();
      const limit = limitOf(query);
      const after = readCursor(query.cursor);
      const rows = await ctx.db.orm
        .select()
        .from(employees)
        .where(after !== null ? gt(employees.id, String(after)) : undefined)
        .orderBy(asc(employees.id))
        .limit(limit + 1);
      return pageOf(rows, limit, (r) => r.id, (page) => page.map(employeeView));
    })
    .get('/employees/:id', async ({ params }) => {
      builtinOnly();
      const row = await ctx.db.orm.query.employees.findFirst({ where: eq(employees.id, params.id) });
      if (!row) throw new FpaError('not_found', 'employee not found', { employee: params.id });
      return employeeView(row);
    })
    .post(
      '/employees',
      async ({ body, set }) => {
        builtinOnly();
        const row = { id: body.id.trim(), name: body.name.trim(), active: body.active ?? true, createdAt: ctx.clock.now() };
        if (!row.id || !row.name) throw new FpaError('validation_error', 'id and name must not be blank', { fields: ['id', 'name'] });
        const created = await ctx.db.write(async ({ tx }) => {
          const exists = await tx.query.employees.findFirst({ where: eq(employees.id, row.id) });
          if (exists) throw new FpaError('conflict', 'an employee with this id exists', { employee: row.id });
          await tx.insert(employees).values(row);
          return row;
        });
        set.status = 201;
        return employeeView(created);
      },
      {
        body: t.Object(
          { id: t.String({ minLength: 1, maxLength: 100 }), name: t.String({ minLength: 1, maxLength: 200 }), active: t.Optional(t.Boolean()) },
          { additionalProperties: false },
        ),
      },
    );
}

function employeeView(row: typeof employees.$inferSelect) {
  return { id: row.id, name: row.name, active: row.active, created_at: new Date(row.createdAt).toISOString() };
}

export function enrolleeRoutes(core: Core) {
  const { ctx, enrollees: service, templates } = core;
  return adminRouter(core, 'admin-enrollees')
    .get('/enrollees', async ({ query }) => {
      const limit = limitOf(query);
      const after = readCursor(query.cursor);
      const conditions = [ne(enrollees.status, 'deleted')];
      if (query.employee) conditions.push(eq(enrollees.employeeKey, query.employee));
      if (query.device_pin) conditions.push(eq(enrollees.devicePin, query.device_pin));
      if (after !== null) conditions.push(gt(enrollees.id, String(after)));
      const rows = await ctx.db.orm
        .select()
        .from(enrollees)
        .where(and(...conditions))
        .orderBy(asc(enrollees.id))
        .limit(limit + 1);
      const views = await service.view(ctx.db.orm, rows.slice(0, limit));
      return pageOf(rows, limit, (r) => r.id, () => views);
    })
    .post(
      '/enrollees',
      async ({ body, admin, set }) => {
        const row = await service.createEnrollee(body.employee, { areas: body.areas, by: admin.by });
        set.status = 201;
        return (await service.view(ctx.db.orm, [row]))[0];
      },
      { body: t.Object({ employee: t.String({ minLength: 1, maxLength: 200 }), areas: Areas }, { additionalProperties: false }) },
    )
    .get('/enrollees/:id', async ({ params }) => (await service.view(ctx.db.orm, [await service.get(params.id)]))[0])
    .patch(
      '/enrollees/:id',
      async ({ params, body, admin }) => {
        const row = await service.update(params.id, body, admin.by);
        return (await service.view(ctx.db.orm, [row]))[0];
      },
      {
        body: t.Object(
          { areas: Areas, display_name: t.Optional(t.String({ minLength: 1, maxLength: 200 })), active: t.Optional(t.Boolean()) },
          { additionalProperties: false },
        ),
      },
    )
    .delete('/enrollees/:id', async ({ params, admin }) => service.deleteEnrollee(params.id, { by: admin.by }))
    .post(
      '/enrollees/:id/consent',
      async ({ params, body, admin, set }) => {
        const consent = await service.giveConsent(params.id, { version: body.version, method: body.method, by: admin.by });
        set.status = 201;
        return consent;
      },
      { body: t.Object({ version: t.String({ minLength: 1, maxLength: 100 }), method: t.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }) },
    )
    .delete('/enrollees/:id/consent', async ({ params, admin }) => service.withdrawConsent(params.id, { by: admin.by }))
    .get('/enrollees/:id/templates', async ({ params }) => {
      const enrollee = await service.get(params.id);
      return { results: await templates.listTemplates(ctx.db.orm, enrollee.id), next_cursor: null };
    });
}

export function jobRoutes(core: Core) {
  return adminRouter(core, 'admin-jobs', { allowOperatorToken: true })
    .get('/jobs', async () => ({ results: await core.jobs.describe(), next_cursor: null }))
    .post(
      '/jobs/:name/run',
      async ({ params, body, admin }) =>
        core.jobs.run(params.name, { wait: true, trigger: `api:${admin.by}`, params: body?.params ?? {} }),
      { body: t.Optional(t.Object({ params: t.Optional(t.Record(t.String(), t.String())) })) },
    );
}

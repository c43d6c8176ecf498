/** `areas/` (docs/api.md, "Fleet: terminals and server agree"). */
import { t } from 'elysia';
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import type { AreaCatalog } from './catalog';
import { AreaCreate, AreaDetail, AreaList, AreaMemberList, AreaParams, AreaPatch, AreaSaved } from './model';

const tags = ['areas'];

export function areaRoutes(http: Http, catalog: AreaCatalog) {
  return adminRouter(http, 'areas')
    .get('/areas', ({ query, scope }) => catalog.list({ cursor: query.cursor, limit: query.limit ?? 100 }, scope), {
      query: AreaList.query,
      response: { 200: AreaList.response, ...errors('invalid_cursor') },
      detail: { summary: 'Areas, with what is in each', tags },
    })
    .post(
      '/areas',
      async ({ body, admin, set }) => {
        const area = await catalog.create(body, admin.by);
        set.status = 201;
        return area;
      },
      {
        body: AreaCreate,
        response: { 201: AreaSaved, ...errors('conflict') },
        detail: { summary: 'Create an area (with a time zone of its own, optionally)', tags },
      },
    )
    .get('/areas/:name', ({ params, scope }) => catalog.get(params.name, scope), {
      params: AreaParams,
      response: { 200: AreaDetail, ...errors('not_found') },
      detail: { summary: 'One area, with its terminals and the schedules assigned to it', tags },
    })
    .get('/areas/:name/members', ({ params, query, scope }) => catalog.members(params.name, { cursor: query.cursor, limit: query.limit ?? 100 }, scope), {
      params: AreaParams,
      query: AreaMemberList.query,
      response: { 200: AreaMemberList.response, ...errors('not_found', 'invalid_cursor') },
      detail: { summary: 'The people of an area, by name', tags },
    })
    .patch('/areas/:name', ({ params, body, admin }) => catalog.update(params.name, body, admin.by), {
      params: AreaParams,
      body: AreaPatch,
      response: { 200: AreaSaved, ...errors('not_found', 'conflict') },
      detail: {
        summary: 'Rename, describe or set the time zone of an area (its members stay in it; a new zone recomputes their days outside locked pay periods)',
        tags,
      },
    })
    .delete(
      '/areas/:name',
      async ({ params, admin, set }) => {
        await catalog.remove(params.name, admin.by);
        set.status = 204;
      },
      {
        params: AreaParams,
        response: { 204: t.Void(), ...errors('not_found', 'conflict') },
        detail: { summary: 'Delete an area nothing is in (409 while in use)', tags },
      },
    );
}

/**
 * Areas managed (no typo creates one), people imported from a spreadsheet with a dry run, and
 * shifts for an area or many people at once with the calendar of who works when: issue 26.
 * The server runs with the product's default (AREAS_CREATED_ON_USE off).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ApiClient, adminToken, startTestServer, type TestServer } from '../support/harness';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ AREAS_CREATED_ON_USE: false, TIME_ZONE: 'UTC' });
  for (const name of ['Head Office', 'Warehouse']) expect((await server.admin.post('/areas/', { name })).status).toBe(201);
});
afterAll(async () => {
  await server?.close();
});

async function importCsv(csv: string, dryRun = false, authorization = server.admin.headers.authorization!) {
  const res = await fetch(`${server.admin.base}/employees/import/${dryRun ? '?dry_run=true' : ''}`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'text/csv' },
    body: csv,
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('areas', () => {
  test('an unknown area in a person or terminal body is 422 with a plain message; nothing is created', async () => {
    expect((await server.admin.post('/employees/', { id: 'A-1', name: 'Ann Area' })).status).toBe(201);
    const typo = await server.admin.post('/enrollees/', { employee: 'A-1', areas: ['Head office'] });
    expect(typo.status).toBe(422);
    expect(typo.body.error.code).toBe('unknown_area');
    expect(typo.body.error.message).toContain('there is no area named "Head office"');
    expect(typo.body.error.details).toMatchObject({ field: 'areas', unknown: ['Head office'], suggestions: { 'Head office': 'Head Office' } });
    expect((await server.admin.get('/areas/Head%20office/')).status).toBe(404);
    expect((await server.admin.get('/enrollees/?employee=A-1')).body.results).toEqual([]);
    const ok = await server.admin.post('/enrollees/', { employee: 'A-1', areas: ['Head Office'] });
    expect(ok.status).toBe(201);
    expect((await server.admin.patch(`/enrollees/${ok.body.id}/`, { areas: ['Nowhere'] })).status).toBe(422);
    expect((await server.admin.post('/devices/', { serial_number: 'AREA0001', areas: ['Warehose'] })).body.error?.code).toBe('unknown_area');
    expect((await server.admin.post('/shift-assignments/', { schedule: 'x', area: 'Nowhere', from: '2026-03-02' })).status).toBeGreaterThanOrEqual(404);
    // `default` always exists.
    expect((await server.admin.post('/devices/', { serial_number: 'AREA0002', areas: ['default'] })).status).toBe(201);
  });

  test('renamed and described: members stay; the area lists its people, terminals and schedules', async () => {
    expect((await server.admin.post('/devices/', { serial_number: 'AREA0003', name: 'Dock door', areas: ['Warehouse'] })).status).toBe(201);
    const renamed = await server.admin.patch('/areas/Warehouse/', { name: 'Main Warehouse', description: 'Building B' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Main Warehouse', description: 'Building B' });
    const detail = await server.admin.get('/areas/Main%20Warehouse/');
    expect(detail.body.terminals).toEqual([{ serial_number: 'AREA0003', name: 'Dock door', status: 'approved' }]);
    expect((await server.admin.get('/devices/AREA0003/')).body.areas).toEqual(['Main Warehouse']);
    const members = await server.admin.get('/areas/Head%20Office/members/');
    expect(members.body.results.map((m: any) => m.display_name)).toEqual(['Ann Area']);
    expect((await server.admin.get('/areas/Nowhere/members/')).status).toBe(404);
  });
});

describe('employees/import/', () => {
  const file = [
    'id,name,areas,card',
    'I-1,Ivy One,Head Office,1001',
    'I-2,Ian Two,Head Office;Main Warehouse,',
    'I-3,Bad Area,Head office,',
    'I-4,"Quoted, Name",,1001',
    'I-5,,Head Office,',
    'I-6,Card Bad,,12ab',
  ].join('\r\n');

  test('a dry run stores nothing and says what would change, line by line', async () => {
    const dry = await importCsv(file, true);
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ dry_run: true, created: 2, updated: 0 });
    expect(dry.body.errors.map((e: any) => e.line)).toEqual([4, 5, 6, 7]);
    expect(dry.body.errors[0].message).toContain('no area named "Head office"');
    expect(dry.body.errors[1].message).toContain('card 1001 is already on line 2');
    expect(dry.body.changes.map((c: any) => [c.line, c.employee, c.action])).toEqual([
      [2, 'I-1', 'create'],
      [3, 'I-2', 'create'],
    ]);
    expect((await server.admin.get('/enrollees/?employee=I-1')).body.results).toEqual([]);
    expect((await server.admin.get('/employees/I-1/')).status).toBe(404);
  });

  test('the import stores the good lines and nothing of a bad line; a second run updates', async () => {
    const done = await importCsv(file);
    expect(done.body).toMatchObject({ dry_run: false, created: 2, updated: 0 });
    expect(done.body.errors).toHaveLength(4);
    const ivy = (await server.admin.get('/enrollees/?employee=I-1')).body.results[0];
    expect(ivy).toMatchObject({ display_name: 'Ivy One', areas: ['Head Office'], card: '1001' });
    expect((await server.admin.get('/enrollees/?employee=I-2')).body.results[0].areas).toEqual(['Head Office', 'Main Warehouse']);
    for (const bad of ['I-3', 'I-4', 'I-5', 'I-6']) {
      expect((await server.admin.get(`/employees/${bad}/`)).status).toBe(404);
      expect((await server.admin.get(`/enrollees/?employee=${bad}`)).body.results).toEqual([]);
    }
    const again = await importCsv('id,name,areas\r\nI-1,Ivy Renamed,Main Warehouse\r\nI-2,Ian Two,\r\n');
    expect(again.body).toMatchObject({ created: 0, updated: 1, unchanged: 1, errors: [] });
    expect(again.body.changes[0].fields).toEqual({
      name: { from: 'Ivy One', to: 'Ivy Renamed' },
      areas: { from: 'Head Office', to: 'Main Warehouse' },
    });
    const renamed = (await server.admin.get('/enrollees/?employee=I-1')).body.results[0];
    expect(renamed).toMatchObject({ display_name: 'Ivy Renamed', areas: ['Main Warehouse'], card: '1001' });
    expect((await server.admin.get('/employees/I-1/')).body.name).toBe('Ivy Renamed');
  });

  test('a branch’s HR imports into its own areas only, and cannot change people enrolled elsewhere', async () => {
    expect((await importCsv('id,name,areas\r\nW-0,Wes Both,Head Office;Main Warehouse\r\n')).body).toMatchObject({ created: 1, errors: [] });
    expect((await server.admin.post('/employees/', { id: 'D-1', name: 'Dora Directory' })).status).toBe(201);
    const branchHr = `Bearer ${await adminToken({ sub: 'hr.north@example.com', role: 'hr', areas: ['Main Warehouse'] })}`;
    const file = [
      'id,name,areas',
      'W-1,Wanda Warehouse,', // no areas: the caller's own
      'W-2,Walt Both,Main Warehouse;Head Office', // an area that is not the caller's
      'W-0,Wes Moved,Main Warehouse', // Wes is in Head Office and Main Warehouse: in reach, and keeps Head Office
      'A-1,Ann Elsewhere,Main Warehouse', // Ann is in Head Office only
      'D-1,Dora Renamed,', // in the directory, enrolled nowhere: no area's
    ].join('\r\n');
    const refusals = [
      { line: 3, message: 'the areas Head Office are not yours: you may import into Main Warehouse' },
      { line: 5, message: 'A-1 is enrolled outside your areas (Main Warehouse): ask an administrator of their area' },
      { line: 6, message: 'D-1 is in the employee directory but not enrolled: enroll them on the People page, or ask an administrator' },
    ];
    // A dry run says the same, and shows nothing of the refused lines (Dora's name in the directory included).
    const dry = await importCsv(file, true, branchHr);
    expect(dry.body).toMatchObject({ dry_run: true, created: 1, updated: 1, errors: refusals });
    expect(dry.body.changes.map((c: any) => c.employee)).toEqual(['W-1', 'W-0']);
    expect(JSON.stringify(dry.body)).not.toContain('Dora Directory');
    const read = await importCsv(file, false, branchHr);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ created: 1, updated: 1 });
    expect(read.body.errors).toEqual(refusals);
    expect((await server.admin.get('/employees/D-1/')).body.name).toBe('Dora Directory');
    expect((await server.admin.get('/enrollees/?employee=D-1')).body.results).toEqual([]);
    expect((await server.admin.get('/enrollees/?employee=W-1')).body.results[0]).toMatchObject({ display_name: 'Wanda Warehouse', areas: ['Main Warehouse'] });
    expect((await server.admin.get('/enrollees/?employee=W-0')).body.results[0]).toMatchObject({
      display_name: 'Wes Moved',
      areas: ['Head Office', 'Main Warehouse'],
    });
    // So does someone changed on their page by the same caller.
    const wes = (await server.admin.get('/enrollees/?employee=W-0')).body.results[0];
    const patched = await fetch(`${server.admin.base}/enrollees/${wes.id}/`, {
      method: 'PATCH',
      headers: { authorization: branchHr, 'content-type': 'application/json' },
      body: JSON.stringify({ areas: ['Main Warehouse'], display_name: 'Wes Patched' }),
    });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({ display_name: 'Wes Patched', areas: ['Head Office', 'Main Warehouse'] });
    expect((await server.admin.get('/enrollees/?employee=A-1')).body.results[0]).toMatchObject({ display_name: 'Ann Area', areas: ['Head Office'] });
    expect((await server.admin.get('/employees/W-2/')).status).toBe(404);
    // A role the policy leaves out is still refused, limited or not.
    const viewer = `Bearer ${await adminToken({ sub: 'v@example.com', role: 'viewer', areas: ['Main Warehouse'] })}`;
    expect((await importCsv('id,name\r\nV-1,Vera\r\n', false, viewer)).status).toBe(403);
  });

  test('a card held by someone outside the file, a bad header, an empty file', async () => {
    const taken = await importCsv('id,name,card\r\nI-7,Card Thief,1001\r\n');
    expect(taken.body.errors).toEqual([{ line: 2, message: 'the card 1001 belongs to someone else' }]);
    expect((await importCsv('id,fullname\r\nX,Y\r\n')).body.errors[0]).toMatchObject({ line: 1 });
    // A file over the API's cap (1 MiB), even far over it: the error body with the limit, not Bun's bare 413.
    for (const size of [2, 12]) {
      const big = await importCsv(`id,name\n${'x'.repeat(size * 1024 * 1024)}`, true);
      expect(big.status).toBe(413);
      expect(big.body.error).toMatchObject({ code: 'payload_too_large', details: { max_bytes: 1024 * 1024 } });
    }
    // An empty (0-byte) file is answered in the import's words, not as a body of the wrong shape.
    for (const dryRun of [true, false]) {
      expect(await importCsv('', dryRun)).toEqual({
        status: 200,
        body: {
          dry_run: dryRun,
          created: 0,
          updated: 0,
          unchanged: 0,
          changes: [],
          errors: [{ line: 1, message: 'the file is empty: a header row `id,name,areas,card` is needed' }],
        },
      });
    }
  });

  test('a file from German Excel (semicolons) is imported as separated by semicolons; a header still unreadable names its separator', async () => {
    // The bakery owner's file, as Excel saves "CSV (Trennzeichen-getrennt)": semicolons, a byte-order mark, CRLF.
    const excel = '\uFEFFid;name;areas;card\r\nS07;Greta Hoffmann-Bäcker;;\r\nS08;"Müller, Jörg";"Head Office;Main Warehouse";0042\r\n';
    const done = await importCsv(excel);
    expect(done).toMatchObject({ status: 200, body: { created: 2, errors: [] } });
    const jorg = (await server.admin.get('/enrollees/?search=S08')).body.results[0];
    expect(jorg).toMatchObject({ employee: 'S08', display_name: 'Müller, Jörg', areas: ['Head Office', 'Main Warehouse'], card: '42' });
    // Punches from the same Excel.
    const punches = await fetch(`${server.admin.base}/punches/import/?dry_run=true`, {
      method: 'POST',
      headers: { authorization: server.admin.headers.authorization!, 'content-type': 'text/csv' },
      body: 'employee;at;state\r\nS07;2026-03-02 08:00;0\r\n',
    });
    expect(await punches.json()).toMatchObject({ imported: 1, errors: [] });
    // Tab-separated, or a header of other names: the message says what it was read with.
    expect((await importCsv('id\tname\r\nS09\tIda\r\n', true)).body.errors).toEqual([
      {
        line: 1,
        message:
          'the header row must name the columns id and name, and may name areas and card (unknown: id\tname); its header row has no comma (,) or semicolon (;) between the column names: save the file as CSV, its columns separated by commas or semicolons',
      },
    ]);
    expect((await importCsv('Personalnummer;Name\r\nS09;Ida\r\n', true)).body.errors[0].message).toEndWith(
      '(unknown: personalnummer); its columns were read as separated by semicolons (;), the separator of its header row',
    );
  });

  test('an empty JSON body (or none at all) and a JSON object are refused in the import’s words, not the schema’s', async () => {
    const post = async (body: string | undefined, contentType?: string) => {
      const headers: Record<string, string> = { authorization: server.admin.headers.authorization! };
      if (contentType) headers['content-type'] = contentType;
      const res = await fetch(`${server.admin.base}/employees/import/`, { method: 'POST', headers, body });
      return { status: res.status, error: ((await res.json()) as any).error };
    };
    const empty = 'the request body is empty: send the records as a JSON array (application/json) or as CSV with its header row (text/csv)';
    for (const [body, type] of [
      ['', 'application/json'],
      [undefined, 'application/json'],
      [undefined, undefined],
    ] as const) {
      expect(await post(body, type)).toMatchObject({ status: 400, error: { code: 'validation_error', message: empty } });
    }
    for (const body of ['{}', 'null']) {
      expect(await post(body, 'application/json')).toMatchObject({
        status: 400,
        error: { code: 'validation_error', message: 'the request body must be a JSON array of records' },
      });
    }
    // An empty array is an import of nobody.
    expect(await post('[]', 'application/json')).toMatchObject({ status: 200 });
    // Still 401 without a credential, whatever the body.
    expect((await fetch(`${server.admin.base}/employees/import/`, { method: 'POST', headers: { 'content-type': 'application/json' } })).status).toBe(401);
  });
});

describe('what the console shows after a withdrawal, and the terminal’s commands newest first', () => {
  test('the audit log answers when consent was withdrawn, by whom and how many fingerprints were destroyed', async () => {
    const ann = (await server.admin.get('/enrollees/?employee=A-1')).body.results[0];
    expect((await server.admin.post(`/enrollees/${ann.id}/consent/`, { version: '2026-01', method: 'signed form' })).status).toBe(201);
    expect((await server.admin.delete(`/enrollees/${ann.id}/consent/`)).status).toBe(200);
    const found = await server.admin.get(`/audit-log/?target=${ann.id}&action=consent.withdrawn&limit=1`);
    expect(found.body.results).toMatchObject([{ actor: 'admin@example.com', target_id: ann.id, details: { templates_destroyed: 0 } }]);
    expect((await server.admin.get(`/audit-log/?target=someone-else&action=consent.withdrawn`)).body.results).toEqual([]);
    // HR, who cannot read the audit log, reads it on the person: the console's consent section.
    const hr = `Bearer ${await adminToken({ sub: 'hr@example.com', role: 'hr' })}`;
    const seen = await fetch(`${server.url}/api/fingerprint/v1/enrollees/${ann.id}/`, { headers: { authorization: hr } });
    expect(await seen.json()).toMatchObject({ consent: null, consent_withdrawn: { withdrawn_by: 'admin@example.com', templates_destroyed: 0 } });
    // Given again: the withdrawal is history, not shown.
    expect((await server.admin.post(`/enrollees/${ann.id}/consent/`, { version: '2026-02', method: 'signed form' })).status).toBe(201);
    expect((await server.admin.get(`/enrollees/${ann.id}/`)).body).toMatchObject({ consent: { version: '2026-02' }, consent_withdrawn: null });
  });

  test('commands list newest first on request, paged', async () => {
    for (const kind of ['info', 'reboot', 'query_users']) expect((await server.admin.post('/devices/AREA0003/commands/', { kind })).status).toBe(201);
    const first = await server.admin.get('/devices/AREA0003/commands/?order=newest&limit=2');
    const oldest = await server.admin.get('/devices/AREA0003/commands/?limit=1000');
    const ids = oldest.body.results.map((c: any) => c.id);
    expect(first.body.results.map((c: any) => c.id)).toEqual(ids.slice(-2).reverse());
    const next = await server.admin.get(`/devices/AREA0003/commands/?order=newest&limit=2&cursor=${first.body.next_cursor}`);
    expect(next.body.results[0].id).toBe(ids[ids.length - 3]);
  });
});

describe('shifts for an area and for many people at once', () => {
  test('the roster shows who works when', async () => {
    expect((await server.admin.post('/work-schedules/', { name: 'Early', start: '06:00', end: '14:00', break: '30m', weekdays: [1, 2, 3, 4, 5] })).status).toBe(
      201,
    );
    expect((await server.admin.post('/work-schedules/', { name: 'Late', start: '14:00', end: '22:00' })).status).toBe(201);
    const byArea = await server.admin.post('/shift-assignments/', { schedule: 'Early', area: 'Head Office', from: '2026-03-02' });
    expect(byArea.status).toBe(201);
    const ian = (await server.admin.get('/enrollees/?employee=I-2')).body.results[0];
    const ann = (await server.admin.get('/enrollees/?employee=A-1')).body.results[0];
    const many = await server.admin.post('/shift-assignments/batch/', {
      schedule: 'Late',
      enrollees: [ian.id, ann.device_pin],
      from: '2026-03-04',
      to: '2026-03-05',
    });
    expect(many.status).toBe(201);
    expect(many.body.results.map((a: any) => a.enrollee).sort()).toEqual([ann.id, ian.id].sort());
    expect((await server.admin.post('/shift-assignments/batch/', { schedule: 'Late', enrollees: ['no-such'], from: '2026-03-04' })).status).toBe(404);

    const roster = await server.admin.get('/calendar/roster/?area=Head%20Office&from=2026-03-02&to=2026-03-08');
    expect(roster.status).toBe(200);
    const rows = Object.fromEntries(roster.body.results.map((r: any) => [r.display_name, r.days.map((d: any) => d.schedule?.name ?? d.day_type)]));
    expect(rows['Ann Area']).toEqual(['Early', 'Early', 'Late', 'Late', 'Early', 'weekend', 'weekend']);
    expect(rows['Ian Two']).toEqual(['Early', 'Early', 'Late', 'Late', 'Early', 'weekend', 'weekend']);
    expect((await server.admin.get('/areas/Head%20Office/')).body.schedules).toMatchObject([{ schedule: 'Early', from: '2026-03-02', to: null }]);
    expect((await server.admin.get('/calendar/roster/?area=Nowhere&from=2026-03-02&to=2026-03-08')).status).toBe(404);
    expect((await server.admin.get('/calendar/roster/?area=Head%20Office&from=2026-03-02&to=2026-06-08')).status).toBe(400);
  });

  test('a branch’s HR assigns many of its own people at once; one outside its areas refuses the batch', async () => {
    const branchHr = new ApiClient(server.admin.base, {
      authorization: `Bearer ${await adminToken({ sub: 'hr.north@example.com', role: 'hr', areas: ['Main Warehouse'] })}`,
    });
    const [wanda, ann] = await Promise.all(['W-1', 'A-1'].map(async (e) => (await server.admin.get(`/enrollees/?employee=${e}`)).body.results[0]));
    const mixed = await branchHr.post('/shift-assignments/batch/', { schedule: 'Late', enrollees: [wanda.id, ann.id], from: '2026-03-09' });
    expect(mixed.status).toBe(404);
    // Named as the caller named them, as an unknown person would be.
    expect(mixed.body.error).toMatchObject({ code: 'not_found', message: 'enrollee not found', details: { enrollee: ann.id } });
    const own = await branchHr.post('/shift-assignments/batch/', { schedule: 'Late', enrollees: [wanda.id], from: '2026-03-09' });
    expect(own.status).toBe(201);
    expect(own.body.results.map((a: any) => a.enrollee)).toEqual([wanda.id]);
    // Nothing of the refused batch was stored: from the 9th only Wanda's own assignment exists.
    const assignments = await server.admin.get('/shift-assignments/?limit=500');
    expect(assignments.status).toBe(200);
    expect(assignments.body.results.filter((a: any) => a.from === '2026-03-09').map((a: any) => a.enrollee)).toEqual([wanda.id]);
  });
});

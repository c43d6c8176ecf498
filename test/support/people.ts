/**
 * Many people at once for a test of size (a company past the API's page of 1,000): employees and
 * active enrollees of the default area written in one transaction, as the bench seeds them
 * (bench/support.ts `bulkEnrollees`), where enrolling 1,000 people one by one through the import
 * would take most of a browser test's time. Their PINs start at `firstPin`, far from those the
 * server hands out, and are never sent to a terminal (there is none).
 */
import { employees, enrolleeAreas, enrollees } from '../../src/app/schema';
import { resolveAreas } from '../../src/modules/areas/names';
import { nameKey } from '../../src/platform/name-key';
import type { TestServer } from './harness';

export async function seedPeople(server: TestServer, people: readonly { employee: string; name: string }[], firstPin = 900_000): Promise<void> {
  const now = Date.now();
  const rows = people.map((p, i) => ({ ...p, id: crypto.randomUUID(), pin: String(firstPin + i) }));
  await server.fpa.db.write(async ({ tx }) => {
    const [areaId] = await resolveAreas(tx, undefined, now);
    for (let i = 0; i < rows.length; i += 500) {
      const part = rows.slice(i, i + 500);
      await tx.insert(employees).values(part.map((p) => ({ id: p.employee, name: p.name, active: true, createdAt: now })));
      await tx.insert(enrollees).values(
        part.map((p) => ({
          id: p.id,
          employeeKey: p.employee,
          devicePin: p.pin,
          displayName: p.name,
          nameKey: nameKey(p.name),
          status: 'active' as const,
          createdAt: now,
          updatedAt: now,
        })),
      );
      await tx.insert(enrolleeAreas).values(part.map((p) => ({ enrolleeId: p.id, areaId: areaId! })));
    }
  });
}

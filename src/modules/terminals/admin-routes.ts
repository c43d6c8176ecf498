/** `devices/{sn}/punches/import/`: a terminal's USB attendance file (usb-import.ts). */
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { SerialParams } from '../devices';
import { UsbImportBody, UsbImportQuery, UsbImportResult } from './model';
import type { UsbImport } from './usb-import';

export function usbImportRoutes(http: Http, usbImport: UsbImport) {
  // Its own router: the body is the file as the terminal wrote it, not a JSON object.
  return adminRouter(http, 'terminal-usb-import', { body: 'terminal-file' }).post(
    '/devices/:serial/punches/import',
    ({ params, body, query, admin, scope }) => usbImport.run(params.serial, body, { dryRun: query.dry_run === true, by: admin.by, scope }),
    {
      params: SerialParams,
      body: UsbImportBody,
      query: UsbImportQuery,
      response: { 200: UsbImportResult, ...errors('not_found', 'conflict') },
      detail: {
        summary: 'Import a terminal’s USB attendance file (`1_attlog.dat`); `?dry_run=true` stores nothing',
        tags: ['devices'],
        description:
          'For a terminal that cannot send its punches. Each line is stored as the terminal’s own upload would store it (its time zone, its people by PIN, flagged `usb_file`); a punch already stored from the terminal is a duplicate, so importing a file again stores nothing twice. A bad line is reported by line and costs only itself. The binary file of older terminals is refused (validation_error); a terminal waiting for approval is 409.',
      },
    },
  );
}

import { describe, expect, test } from 'bun:test';
import { databaseUnavailable, redactDatabaseUrl } from '../../src/platform/db/unavailable';

describe('a database that cannot be opened, in words', () => {
  test('its URL is shown without credentials', () => {
    expect(redactDatabaseUrl('libsql://db.example.com?authToken=eyJsecret')).toBe('libsql://db.example.com?authToken=***');
    expect(redactDatabaseUrl('https://fpa:hunter2@db.example.com:8080/')).toBe('https://***@db.example.com:8080/');
    expect(redactDatabaseUrl('file:./data/fpa.db')).toBe('file:./data/fpa.db');
    expect(redactDatabaseUrl('libsql://db.example.com?tls=0')).toBe('libsql://db.example.com?tls=0');
  });

  test('a refused connection reads as one, and no secret reaches the message', () => {
    const refused = Object.assign(new TypeError('ECONNREFUSED: Unable to connect to libsql://h?authToken=abc (token abc)'), { code: 'ECONNREFUSED' });
    const error = databaseUnavailable('libsql://h?authToken=abc', null, refused, ['abc']);
    expect(error.message).toBe('cannot open the database libsql://h?authToken=***: connection refused (no libSQL server listens at that address and port)');
  });
});

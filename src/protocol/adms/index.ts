/**
 * Pure ZKTeco ADMS / iclock push protocol layer: parsing device bodies, building replies and
 * commands, and the time arithmetic around device wall-clock times. No HTTP, no storage.
 * Parsers never throw on device input: bad lines come back as LineError entries.
 */
export * from './types';
export * from './text';
export * from './fields';
export * from './lines';
export * from './pin';
export * from './base64';
export * from './card';
export * from './local-time';
export * from './attlog';
export * from './biodata';
export * from './operlog';
export * from './options';
export * from './info';
export * from './devicecmd';
export * from './query';
export * from './commands';
export * from './command-batch';
export * from './push-version';
export * from './option-block';
export * from './http-date';
export * from './push3-clock';
export * from './push3';
export * from './attphoto';

/**
 * Pure ZKTeco ADMS / iclock push protocol layer: parsing device bodies, building replies and
 * commands, and the time arithmetic around device wall-clock times. No HTTP, no storage.
 * Parsers never throw on device input: bad lines come back as LineError entries.
 */

export * from './access-events';
export * from './attlog';
export * from './attphoto';
export * from './base64';
export * from './biodata';
export * from './biometric-types';
export * from './card';
export * from './command-batch';
export * from './commands';
export * from './devicecmd';
export * from './fields';
export * from './health';
export * from './http-date';
export * from './info';
export * from './lines';
export * from './operlog';
export * from './option-block';
export * from './options';
export * from './pin';
export * from './push-version';
export * from './push3';
export * from './push3-clock';
export * from './push3-commands';
export * from './query';
export * from './text';
export * from './types';
export * from './usb-attlog';

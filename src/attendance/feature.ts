/** Scaffold: replaced by the feature's real installation. */
import type { Core } from '../core/core';
import type { Signals } from '../core/context';
import type { FeatureParts } from '../features';

export function installAttendance(core: Core, onSignals: (handlers: Partial<Signals>) => void): FeatureParts {
  void core;
  void onSignals;
  return { routes: [], service: {} };
}

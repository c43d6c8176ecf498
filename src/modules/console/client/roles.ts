/** The roles of people who sign in, as the console names them (the roles themselves: src/modules/users/model.ts). */
import type { UserView } from '../../users';

export type Role = UserView['role'];

export const ROLE_NAMES: Record<Role, string> = {
  owner: 'Owner',
  admin: 'Administrator',
  hr: 'HR officer',
  manager: 'Manager',
  installer: 'Installer',
  viewer: 'Viewer',
};

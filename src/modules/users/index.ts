/** People who sign in: accounts, invites and resets, password sign-in, API keys. */
export { ApiKeys } from './api-keys';
export type { ApiKeyView, InviteInfoView, MeView, UserCreateInput, UserView } from './model';
export { UserCreate } from './model';
export { apiKeyRoutes, userRoutes } from './routes';
export { USER_SETTINGS } from './runtime';
export { anyoneHasAnAccount, UsersService } from './service';
export { PasswordSignIn, type PendingSignIn } from './sign-in';
export { signInRoutes } from './sign-in-routes';
export { accountOf } from './views';

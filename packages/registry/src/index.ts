/** @ctxpkg/registry — the Hono registry server. `createApp` builds the app; `server.ts` listens. */
export {};

/** The app credentials of the simulator's default fixtures (fixtures/default.json). */
export const DEMO_CREDENTIALS = { appToken: 'demo-app-token', appSecret: 'demo-app-secret' };

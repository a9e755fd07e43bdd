// The console's options of the chart, for its own tests and the validation of every option.
export const TOKEN = '0123456789abcdef0123456789';
export const CONSOLE_WITH_TOKENS = [
  ...['--set', 'console.enabled=true'],
  ...[
    '--set',
    'console.tokens.entries[0].role=operator',
    '--set',
    'console.tokens.entries[0].name=alice',
  ],
  ...['--set', `console.tokens.entries[0].token=${TOKEN}`],
  ...[
    '--set',
    'console.tokens.entries[1].role=viewer',
    '--set',
    'console.tokens.entries[1].name=bob',
  ],
  ...['--set', `console.tokens.entries[1].token=${TOKEN}bob`],
];
export const CONSOLE_BEHIND_PROXY = [
  ...['--set', 'console.enabled=true', '--set', 'console.auth=proxy'],
  ...['--set', 'console.proxy.operators[0]=group:oncall'],
  ...['--set', 'console.proxy.operators[1]=carol@example.com'],
  ...['--set', 'console.proxy.containers[0].name=oauth2-proxy'],
  ...['--set', 'console.proxy.containers[0].image=quay.io/oauth2-proxy/oauth2-proxy:v7.7.1'],
  ...['--set', 'console.proxy.containers[0].args[0]=--upstream=http://127.0.0.1:8090'],
  ...['--set', 'console.proxy.containers[0].ports[0].name=proxy'],
  ...['--set', 'console.proxy.containers[0].ports[0].containerPort=4180'],
];

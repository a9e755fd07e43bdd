/**
 * Imports run one way (docs/design.md, "Layers"): a folder of src/ may import its own files and
 * the folders of lower layers, never a folder of its own layer or of a higher one. `npm run lint`
 * (and so `npm test`) runs this.
 *
 * Lowest first. The message contracts (src/schemas/messages) are near the bottom, so a type a
 * lower folder needs from a higher one belongs there.
 */
const LAYERS = [
  // Foundations: pure helpers that know nothing of the bridge.
  ['src/retry/', 'src/fairness/', 'src/error-codes.ts', 'src/personal-data.ts'],
  // Contracts: the platform's interface, then the bridge's commands, events and ledger records.
  ['src/schemas/issues.ts'],
  ['src/schemas/platform/'],
  ['src/schemas/messages/'],
  ['src/errors.ts'],
  // What the bridge's events say: their shared fields, failures, bounded excerpts.
  ['src/events/'],
  // Adapters: Kafka, the platform's HTTP interface, document files.
  ['src/kafka/', 'src/api-client/', 'src/files/'],
  // The topic table, the ledger's entries and records, the use cases, the platform's stand-in.
  ['src/topics/', 'src/ledger/', 'src/handlers/', 'src/simulator/'],
  // Everything the bridge writes: events, dead letters, ledger records, through the outbox.
  ['src/producers/'],
  // Each owned partition's life; the library for other services.
  ['src/partitions/', 'src/sdk/'],
  // The engine: intake, scheduling, running commands.
  ['src/consumers/'],
  ['src/observability/'],
  ['src/config/'],
  ['src/service.ts'],
  // Entry points: the command line, and the documents generated from the code.
  ['src/cli/', 'src/schemas/export/'],
];

const literal = (path) => path.replace(/[.]/g, '\\.');
const anyOf = (paths) => `^(${paths.map(literal).join('|')})`;

/** For each folder: importing a folder of its own layer or a higher one is forbidden. */
const layerRules = LAYERS.flatMap((layer, index) =>
  layer.map((folder) => {
    const others = LAYERS.slice(index)
      .flat()
      .filter((other) => other !== folder);
    return {
      name: `layers: ${folder}`,
      comment: `${folder} may import only the folders of the layers below it (docs/design.md, "Layers")`,
      severity: 'error',
      from: { path: `^${literal(folder)}` },
      to: { path: anyOf(others) },
    };
  }),
);

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'no-circular',
      comment: 'A cycle of imports makes two modules one; split what both need into a lower one.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-orphans',
      comment: 'A module nothing imports and that imports nothing is dead code, or a lost test.',
      severity: 'error',
      from: {
        orphan: true,
        pathNot: ['\\.d\\.ts$', '(^|/)index\\.ts$', '^src/cli/main\\.ts$'],
      },
      to: {},
    },
    {
      name: 'kafkajs-only-in-src-kafka',
      comment: 'src/kafka is the only module that imports kafkajs (docs/design.md).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/kafka/' },
      to: { path: 'node_modules/kafkajs/' },
    },
    {
      name: 'no-library-internals',
      comment:
        "src/ uses its dependencies' public entry points only: a module deep inside a package (kafkajs/src/...) is its internals, and the service changes none of them at run time (a fix is a declared patch in patches/, docs/deployment.md).",
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.test\\.ts$' },
      to: { path: 'node_modules/[^/]+/src/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json'],
    },
  },
};

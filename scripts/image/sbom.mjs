#!/usr/bin/env node
// The image's software bill of materials: what `npm sbom --sbom-format cyclonedx` wrote for the
// installed production tree, with two of npm's defects corrected. Plain JavaScript, because the
// image's sbom stage runs it with node alone.
//
//   node scripts/image/sbom.mjs npm-sbom.json > sbom.cdx.json    (in the folder npm described)
//
// - A repository URL written the scp way (`git@github.com:owner/repo.git`, prom-client's) is no
//   IRI, so the document fails the CycloneDX schema and Dependency-Track refuses it
//   (npm/cli#9144): it becomes the ssh URL it stands for (`git+ssh://git@github.com/owner/repo.git`).
// - npm names the document's own component after the folder (`app`): it takes package.json's name.
// - npm describes a package as the registry publishes it: one the project patches
//   (patches/<name>+<version>.patch, which patch-package applied in the folder) carries that
//   patch in its pedigree, as CycloneDX records a modified component.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { argv, exit, stderr, stdout } from 'node:process';

// user@host:path, where the part before the colon holds no slash (no scheme's `//`).
const SCP_LIKE = /^([\w.-]+@[\w.-]+):(?!\/)(.+)$/;

/** The URL an scp-like repository address stands for; any other URL as it is. */
function iriOf(url) {
  const scp = SCP_LIKE.exec(url);
  return scp ? `git+ssh://${scp[1]}/${scp[2]}` : url;
}

/** The patches of patches/, by the `name@version` each applies to (`@scope+name+1.2.3.patch`). */
function declaredPatches() {
  if (!existsSync('patches')) return new Map();
  const files = readdirSync('patches').filter((file) => file.endsWith('.patch'));
  return new Map(
    files.map((file) => {
      const parts = file.slice(0, -'.patch'.length).split('+');
      const version = parts.pop();
      const patch = {
        type: 'unofficial',
        diff: {
          text: { contentType: 'text/x-diff', content: readFileSync(`patches/${file}`, 'utf8') },
        },
      };
      return [`${parts.join('/')}@${version}`, patch];
    }),
  );
}

/** The document with those corrections; `name` is package.json's. */
function corrected(bom, name, patches) {
  const fix = (component) => ({
    ...component,
    externalReferences: component.externalReferences?.map((reference) => ({
      ...reference,
      url: iriOf(reference.url),
    })),
  });
  const patched = (component) => {
    const patch = patches.get(`${component.name}@${component.version}`);
    return patch ? { ...component, pedigree: { patches: [patch] } } : component;
  };
  const components = bom.components.map((component) => patched(fix(component)));
  const unmatched = [...patches.keys()].filter(
    (key) => !components.some((c) => `${c.name}@${c.version}` === key),
  );
  if (unmatched.length > 0) {
    throw new Error(`patches/ patches ${unmatched.join(', ')}, which the tree does not hold`);
  }
  return {
    ...bom,
    metadata: { ...bom.metadata, component: { ...fix(bom.metadata.component), name } },
    components,
  };
}

if (argv.length !== 3) {
  stderr.write('usage: node scripts/image/sbom.mjs <npm sbom output>\n');
  exit(2);
}
const bom = JSON.parse(readFileSync(argv[2], 'utf8'));
const { name } = JSON.parse(readFileSync('package.json', 'utf8'));
stdout.write(`${JSON.stringify(corrected(bom, name, declaredPatches()), null, 2)}\n`);

/**
 * The version of the published contracts: the commands, the events and their JSON Schemas. It is
 * the package's version (a test keeps the two equal) and part of every schema's `$id`, which
 * each event names in its `ce_dataschema` header. Released schemas are kept in
 * `schemas/releases/<version>/`; a change that is not backward compatible with the newest of
 * them fails the tests.
 */
export const CONTRACT_VERSION = '0.3.0';

export type SchemaKind = 'commands' | 'events';

/**
 * `urn:signing-bridge:schemas:<version>:<kind>/<name>`: the file
 * `schemas/releases/<version>/<kind>/<name>.schema.json` of that release. A URN, not a URL:
 * it names the schema and says nothing of where it is served.
 */
export function schemaId(kind: SchemaKind, name: string, version = CONTRACT_VERSION): string {
  return `urn:signing-bridge:schemas:${version}:${kind}/${name}`;
}

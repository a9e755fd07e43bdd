/** A document made from a fixture template, filled with the parameter values known so far. */
import { renderTemplate } from '../documents/index.js';
import type { TemplateFixture } from '../fixtures.js';
import type { DocumentRecord } from '../state/model.js';
import type { OperationContext } from './context.js';

export interface ParamValue {
  readonly name: string;
  readonly value?: string | undefined;
}

/** Later values win: contract-level parameters first, then the operation's own. */
export function templateDocument(
  template: TemplateFixture,
  title: string,
  values: readonly ParamValue[],
  ctx: OperationContext,
): DocumentRecord {
  const known: Record<string, string> = Object.create(null);
  for (const { name, value } of values) if (value !== undefined) known[name] = value;
  const content = renderTemplate(template.pages, known);
  return {
    id: ctx.ids.next(),
    title,
    pageCount: content.pageCount,
    createTime: ctx.clock.timestamp(),
    pages: content.pages,
    templateId: template.id,
    params: template.params.map((p) => ({ ...p, value: known[p.name] })),
  };
}

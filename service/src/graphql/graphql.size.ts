import { Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';

/** How far a document may reach, fragments expanded. */
export interface SizeLimits {
  maxDepth: number;
  maxFields: number;
  /** How many fragments may spread one another in a chain (each spread inside the one before). */
  maxFragmentNesting: number;
}

interface Size {
  depth: number;
  fields: number;
}

class TooBig extends Error {}

/**
 * Why the document selects too much (deeper than `maxDepth` levels or more than `maxFields` fields in one
 * operation, every fragment spread counted where it is spread), or null. Each fragment is measured once and
 * its size reused at every spread, so the cost is linear in the document even when fragments spread one
 * another many times (a "fragment bomb" selects 2^n fields from n fragments).
 */
export function documentSizeError(document: DocumentNode, limits: SizeLimits): string | null {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const measured = new Map<string, Size>();
  const inProgress = new Set<string>();
  const tooDeep = () => new TooBig(`Query is too deep: the limit is ${limits.maxDepth} levels`);

  const ofFragment = (name: string): Size => {
    const known = measured.get(name);
    if (known) return known;
    const fragment = fragments.get(name);
    // Unknown and cyclic spreads select nothing here; graphql-js's own rules report them.
    if (!fragment || inProgress.has(name)) return { depth: 0, fields: 0 };
    if (inProgress.size >= limits.maxFragmentNesting) {
      throw new TooBig(`Query nests fragments too deeply: the limit is ${limits.maxFragmentNesting}`);
    }
    inProgress.add(name);
    const size = ofSet(fragment.selectionSet, 1);
    inProgress.delete(name);
    measured.set(name, size);
    return size;
  };

  /** The set's size, its depth counted from 1 (the set itself); `level` is where it sits in the fragment being measured. */
  const ofSet = (set: SelectionSetNode, level: number): Size => {
    if (level > limits.maxDepth) throw tooDeep();
    let depth = 1;
    let fields = 0;
    for (const sel of set.selections) {
      let inner: Size;
      if (sel.kind === Kind.FIELD) {
        const sub = sel.selectionSet ? ofSet(sel.selectionSet, level + 1) : { depth: 0, fields: 0 };
        inner = { depth: sub.depth + 1, fields: sub.fields + 1 };
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        inner = ofSet(sel.selectionSet, level);
      } else {
        inner = ofFragment(sel.name.value);
      }
      if (level - 1 + inner.depth > limits.maxDepth) throw tooDeep();
      depth = Math.max(depth, inner.depth);
      fields = Math.min(fields + inner.fields, limits.maxFields + 1);
    }
    return { depth, fields };
  };

  try {
    for (const d of document.definitions) {
      if (d.kind !== Kind.OPERATION_DEFINITION) continue;
      if (ofSet(d.selectionSet, 1).fields > limits.maxFields) {
        return `Query selects too many fields: the limit is ${limits.maxFields}`;
      }
    }
    return null;
  } catch (err) {
    if (err instanceof TooBig) return err.message;
    throw err;
  }
}

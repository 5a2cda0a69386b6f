import { Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';

/** How far a document may reach, fragments expanded. */
export interface SizeLimits {
  maxDepth: number;
  maxFields: number;
  /** How many fragments may spread one another in a chain (each spread inside the one before). */
  maxFragmentNesting: number;
  /** How often one response key may be selected in one selection set, fragments included (graphql-js compares each pair). */
  maxSameKey: number;
}

interface Size {
  depth: number;
  fields: number;
  /** How often each response key is selected at the set's own level, through inline fragments and spreads too. */
  keys: Map<string, number>;
}

const NOTHING: Size = { depth: 0, fields: 0, keys: new Map() };

class TooBig extends Error {}

/**
 * Why the document selects too much (deeper than `maxDepth` levels, more than `maxFields` fields in one
 * operation, every fragment spread counted where it is spread, or one response key more than `maxSameKey`
 * times in a selection set), or null. Each fragment is measured once and its size reused at every spread, so
 * the cost is linear in the document even when fragments spread one another many times (a "fragment bomb"
 * selects 2^n fields from n fragments).
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
    if (!fragment || inProgress.has(name)) return NOTHING;
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
    const keys = new Map<string, number>();
    const count = (key: string, times: number) => {
      const total = (keys.get(key) ?? 0) + times;
      if (total > limits.maxSameKey) {
        throw new TooBig(`Query selects "${key}" more than ${limits.maxSameKey} times in one selection set`);
      }
      keys.set(key, total);
    };
    for (const sel of set.selections) {
      let inner: Size;
      if (sel.kind === Kind.FIELD) {
        const sub = sel.selectionSet ? ofSet(sel.selectionSet, level + 1) : NOTHING;
        inner = { depth: sub.depth + 1, fields: sub.fields + 1, keys: NOTHING.keys };
        count(sel.alias?.value ?? sel.name.value, 1);
      } else {
        inner = sel.kind === Kind.INLINE_FRAGMENT ? ofSet(sel.selectionSet, level) : ofFragment(sel.name.value);
        for (const [key, times] of inner.keys) count(key, times);
      }
      if (level - 1 + inner.depth > limits.maxDepth) throw tooDeep();
      depth = Math.max(depth, inner.depth);
      fields += inner.fields;
      // Any operation spreading this set selects at least as many fields.
      if (fields > limits.maxFields) throw new TooBig(`Query selects too many fields: the limit is ${limits.maxFields}`);
    }
    return { depth, fields, keys };
  };

  try {
    for (const d of document.definitions) {
      if (d.kind !== Kind.OPERATION_DEFINITION) continue;
      ofSet(d.selectionSet, 1);
    }
    return null;
  } catch (err) {
    if (err instanceof TooBig) return err.message;
    throw err;
  }
}

/**
 * DestinationRule consolidation and selection as istiod does them (pilot/pkg/model destination_rule.go
 * `mergeDestinationRule`, push_context.go `setDestinationRules`, sidecar.go `DestinationRule`).
 *
 * Within one index (a namespace's own rules, its exported rules, the root namespace's private rules)
 * the rules of one host are sorted (with a workloadSelector first, then oldest, then by name and
 * namespace) and folded into a list of consolidated rules: a rule merges into an earlier one with the
 * same export set (or one its export set strictly contains, when it is also kept apart) unless both
 * have different selectors; merging appends the subsets whose names are new and takes the top-level
 * traffic policy only when the earlier rule has none. A rule with a selector is exported to its own
 * namespace only. A proxy then gets, in list order, the first rule of its namespace whose selector
 * matches its labels, else the last rule without a selector.
 */
import { keyStringOf, type Config } from './config.js';
import { labelsMatch } from './service.js';

interface DrSpec {
  exportTo?: string[];
  workloadSelector?: { matchLabels?: Record<string, string> };
  subsets?: { name: string }[];
  trafficPolicy?: unknown;
}

/** One consolidated rule: the (possibly merged) rule, the rules it came from, its export set. */
export interface ConsolidatedDestinationRule {
  /** The rule a proxy gets: the first rule itself, or a copy with the others merged in (the first's metadata). */
  readonly rule: Config;
  /** `kind/namespace/name` of the rules merged into `rule`, the first first. */
  readonly from: readonly string[];
  /** istiod's export set (`.` for a rule with a selector). */
  readonly exportTo: ReadonlySet<string>;
  /** The selector's labels, when the rule has a workloadSelector. */
  readonly matchLabels: Readonly<Record<string, string>> | undefined;
}

// NOTE: merged copies are made by consolidation only; their sources are found by identity.
const mergedSources = new WeakMap<Config, readonly string[]>();

/** The keys of the rules a rule the lookup returned was made of (one for a rule not merged). */
export function destinationRuleSources(rule: Config): readonly string[] {
  return mergedSources.get(rule) ?? [keyStringOf(rule)];
}

/** A cache-key part naming a rule the lookup returned, merged ones included (`a+b`). */
export function destinationRuleKey(rule: Config): string {
  return destinationRuleSources(rule).join('+');
}

function specOf(c: Config): DrSpec {
  return c.spec as DrSpec;
}

/** istiod's export set of a rule: a rule with a selector is private to its namespace. */
export function destinationRuleExportTo(c: Config): ReadonlySet<string> {
  return specOf(c).workloadSelector !== undefined ? new Set(['.']) : new Set(specOf(c).exportTo ?? []);
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}

function sameLabels(a: Readonly<Record<string, string>> = {}, b: Readonly<Record<string, string>> = {}): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k] === a[k]);
}

function byIstiodOrder(a: Config, b: Config): number {
  const sa = specOf(a).workloadSelector !== undefined;
  const sb = specOf(b).workloadSelector !== undefined;
  if (sa !== sb) return sa ? -1 : 1;
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  if (a.metadata.name !== b.metadata.name) return a.metadata.name < b.metadata.name ? -1 : 1;
  return a.metadata.namespace < b.metadata.namespace ? -1 : a.metadata.namespace > b.metadata.namespace ? 1 : 0;
}

interface Entry {
  rule: Config;
  from: string[];
  readonly exportTo: ReadonlySet<string>;
  readonly matchLabels: Readonly<Record<string, string>> | undefined;
}

/** `into` with `incoming`'s new subsets and, when it has none, its top-level traffic policy; `onDuplicate` hears each subset name both have. */
function merged(into: Config, incoming: Config, onDuplicate: ((subset: string) => void) | undefined): Config {
  const a = specOf(into);
  const b = specOf(incoming);
  const names = new Set((a.subsets ?? []).map((s) => s.name));
  for (const s of b.subsets ?? []) if (names.has(s.name)) onDuplicate?.(s.name);
  const subsets = [...(a.subsets ?? []), ...(b.subsets ?? []).filter((s) => !names.has(s.name))];
  const trafficPolicy = a.trafficPolicy ?? b.trafficPolicy;
  const spec = { ...a, ...(subsets.length > 0 ? { subsets } : {}), ...(trafficPolicy !== undefined ? { trafficPolicy } : {}) };
  return Object.freeze({ ...into, spec: Object.freeze(spec) as Config['spec'] });
}

/**
 * The rules of one index and host consolidated as istiod does (see the file comment); `onDuplicate`
 * hears each subset name a merge meets twice (istiod's pilot_destrule_subsets).
 */
export function consolidateDestinationRules(rules: readonly Config[], onDuplicate?: (subset: string) => void): ConsolidatedDestinationRule[] {
  const list: Entry[] = [];
  for (const c of [...rules].sort(byIstiodOrder)) {
    const exportTo = destinationRuleExportTo(c);
    const selector = specOf(c).workloadSelector;
    let appendSeparately = true;
    for (const e of list) {
      if (sameSet(exportTo, e.exportTo)) appendSeparately = false;
      else if (e.exportTo.size > 0 && [...e.exportTo].every((x) => exportTo.has(x))) appendSeparately = true;
      else {
        appendSeparately = true;
        continue;
      }
      const bothWith = selector !== undefined && e.matchLabels !== undefined;
      const bothWithout = selector === undefined && e.matchLabels === undefined;
      const selectorsMatch = sameLabels(e.matchLabels, selector?.matchLabels);
      if (bothWith && !selectorsMatch) {
        appendSeparately = true;
        continue;
      }
      if (bothWithout || bothWith) appendSeparately = false;
      // NOTE: as istiod, a rule also merges into an earlier one it is kept apart from (a rule without a
      // selector into one with a selector and the same export set, or a narrower one).
      e.rule = merged(e.rule, c, onDuplicate);
      e.from.push(keyStringOf(c));
      mergedSources.set(e.rule, [...e.from]);
    }
    if (appendSeparately) {
      list.push({ rule: c, from: [keyStringOf(c)], exportTo, matchLabels: selector !== undefined ? (selector.matchLabels ?? {}) : undefined });
    }
  }
  return list.map((e) => Object.freeze({ rule: e.rule, from: Object.freeze([...e.from]), exportTo: e.exportTo, matchLabels: e.matchLabels }));
}

/**
 * The rule a proxy of namespace `from` with `labels` gets from consolidated rules: the first of its
 * namespace whose selector matches, else the last without a selector, else none.
 */
export function selectDestinationRule(list: readonly ConsolidatedDestinationRule[], from: string, labels: Readonly<Record<string, string>>): Config | undefined {
  let catchAll: Config | undefined;
  for (const e of list) {
    if (e.matchLabels === undefined) catchAll = e.rule;
    else if (e.rule.metadata.namespace === from && labelsMatch(e.matchLabels, labels)) return e.rule;
  }
  return catchAll;
}

/**
 * The version of the plan's rules this code runs, stamped in every plan (`plan_version`), per-stock daily row and
 * pool push. It is no setting: a release runs its own rules only, and a plan of an older version needs the older
 * release. Raise it with every change of the rules.
 */
export const PLAN_VERSION = '6'

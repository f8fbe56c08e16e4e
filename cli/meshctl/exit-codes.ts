/** meshctl's exit statuses beyond 0 and 1, shared by command trees (help text) and bodies. */

/** istioctl's exit status when analysis finds issues at or above the failure threshold. */
export const EXIT_ANALYZE_FOUND_ISSUES = 79;

/** Exit status when the configuration was built but a check failed (the dump is still printed). */
export const EXIT_TRANSLATE_CHECK_FAILED = 3;

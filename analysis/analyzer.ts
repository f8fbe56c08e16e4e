/** The contract every analyzer meets. */
import type { AnalysisContext } from './analysis-context.js';

/** One analyzer, registered under Istio's analyzer name (`virtualservice.DestinationHostAnalyzer`, ...). */
export interface Analyzer {
  /** Istio's name, as `meshctl analyze -L` lists it. */
  readonly name: string;
  readonly description: string;
  /** The kind keys it reads (for `-L` and documentation). */
  readonly inputs: readonly string[];
  /** Reads `ctx` and reports findings with `ctx.report`. Must not throw for any input shape. */
  analyze(ctx: AnalysisContext): void;
}

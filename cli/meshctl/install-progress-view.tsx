/** The live progress view of an install on a terminal (ink): one line per component, redrawn as events arrive. */
import { useEffect, useState, type ReactElement } from 'react';
import { Box, render, Text } from 'ink';
import type { ApplyProgress, ManifestObject } from '../../install/index.js';
import { ComponentProgress, type ComponentState, type ProgressView } from './install-progress.js';

interface ViewProps {
  readonly progress: ComponentProgress;
  readonly subscribe: (redraw: () => void) => void;
}

function line(s: ComponentState): ReactElement {
  if (s.failed !== '') return <Text color="red">✘ {s.component}: {s.failed}</Text>;
  if (s.ready === s.total) return <Text color="green">✔ {s.component} installed ({s.total} objects{s.pruned > 0 ? `, ${s.pruned} removed` : ''})</Text>;
  const what = s.waiting !== '' ? `waiting for ${s.waiting}` : `applying ${s.applied}/${s.total}`;
  return <Text color="yellow">… {s.component}: {what} ({s.ready}/{s.total} ready)</Text>;
}

function ProgressTable({ progress, subscribe }: ViewProps): ReactElement {
  const [, setTick] = useState(0);
  useEffect(() => subscribe(() => setTick((t) => t + 1)), [subscribe]);
  return (
    <Box flexDirection="column">
      {progress.states.map((s) => (
        <Box key={s.component}>{line(s)}</Box>
      ))}
    </Box>
  );
}

/** Renders the live view on the process's terminal. */
export function inkProgress(objects: readonly ManifestObject[]): ProgressView {
  const progress = new ComponentProgress(objects);
  let redraw: () => void = () => {};
  const app = render(<ProgressTable progress={progress} subscribe={(r) => (redraw = r)} />, { exitOnCtrlC: false });
  return {
    update(p: ApplyProgress) {
      progress.update(p);
      redraw();
    },
    close() {
      redraw();
      app.unmount();
    },
  };
}

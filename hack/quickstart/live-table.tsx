/** The quick start's live view: the traffic table redrawn a few times a second (ink). */
import { useEffect, useState, type ReactElement } from 'react';
import { Box, Text } from 'ink';
import type { Traffic } from './traffic.js';
import { bar, trafficRows } from './traffic-table.js';
import { formatRejections, type Rejections } from './rejections.js';

export interface LiveTableProps {
  readonly traffic: Traffic;
  /** Edits meshd refused, shown under the table. */
  readonly rejections: Rejections;
  readonly target: string;
  readonly hints: readonly string[];
  readonly refreshMs: number;
}

/** Redraws the table every `refreshMs`. */
export function LiveTable({ traffic, rejections, target, hints, refreshMs }: LiveTableProps): ReactElement {
  const [snap, setSnap] = useState(() => traffic.snapshot());
  const [refused, setRefused] = useState(() => rejections.snapshot());
  useEffect(() => {
    const t = setInterval(() => {
      setSnap(traffic.snapshot());
      setRefused(rejections.snapshot());
    }, refreshMs);
    return () => clearInterval(t);
  }, [traffic, rejections, refreshMs]);
  const rows = trafficRows(snap);
  return (
    <Box flexDirection="column">
      <Text bold>
        mesh quick start · {target} · {snap.total} calls in the last {(snap.windowMs / 1000).toFixed(0)} s
      </Text>
      <Text> </Text>
      <Text dimColor>{'destination'.padEnd(22)}{'calls'.padStart(7)}{'share'.padStart(9)}</Text>
      {rows.map((r) => (
        <Text key={r.label} color={r.error ? 'red' : 'green'}>
          {r.label.padEnd(22)}
          {String(r.calls).padStart(7)}
          {(r.share * 100).toFixed(1).padStart(8)}% {bar(r.share)}
        </Text>
      ))}
      {rows.length === 0 ? <Text dimColor>(no calls answered yet)</Text> : null}
      {snap.lastError !== undefined && snap.errors.size > 0 ? <Text color="red">last error: {snap.lastError}</Text> : null}
      {formatRejections(refused).map((line) => (
        <Text key={line} color="yellow">
          {line}
        </Text>
      ))}
      <Text> </Text>
      {hints.map((h) => (
        <Text key={h} dimColor>
          {h}
        </Text>
      ))}
    </Box>
  );
}

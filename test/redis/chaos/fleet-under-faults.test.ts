import { clusterFaults } from './cluster.js';
import { sentinelFaults } from './sentinel.js';
import { singleRedisFaults } from './single.js';

/*
 * The fleet under faults (issue 23; ARCHITECTURE §4.4): three deployments, each with its own
 * Redis, emulator and BFF processes, so nothing one does is seen by another. Their suites run side
 * by side (each suite `concurrent`), each suite's scenarios one after the other (`it.sequential`):
 * the file costs the longest deployment's time, not the sum (vitest runs one file at a time on
 * two cores). The counts of each scenario go to the test output, a line each.
 */
clusterFaults();
singleRedisFaults();
sentinelFaults();

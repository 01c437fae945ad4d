/**
 * Seeded simulations of the project's routers, run from the command line as {@code shardwise
 * simulate <experiment>} ({@link io.shardwise.simulator.SimulateCommand}): ring balance, router
 * comparison, disruption, Maglev table changes, jump loop counts, bounded loads under Zipf, and
 * small fleets. Each experiment prints a Markdown table and can write CSV and a PNG chart; see
 * {@code docs/simulations.md}. Everything but the command and {@link
 * io.shardwise.simulator.KeyMoves}, which {@code shardwise plan} shares with the {@code disrupt}
 * experiment, is package-private.
 */
package io.shardwise.simulator;

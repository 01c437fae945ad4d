package io.shardwise.core.config;

import static io.shardwise.core.config.ConfigKeys.*;
import static io.shardwise.core.config.ShardwiseConfig.*;

import io.shardwise.core.BoundedOptions;
import io.shardwise.spi.SettingsReader;
import java.time.Duration;

/**
 * The bounded-load keys ({@code shardwise.bounded.*}): each read and checked through its entry of
 * the table ({@link ConfigKeys}), then the window against the resolution (a whole multiple, at most
 * 1000 steps); and the {@link BoundedOptions} they make. Problems go to the reader. The loader reads
 * them over the defaults, a change while the client serves ({@link PlacementSettings}) over the
 * options in force.
 */
final class BoundedSettings {

  private final boolean enabled;
  private final double epsilon;
  private final int probeLimit;
  private final String scope;
  private final Duration window;
  private final Duration resolution;
  private final Duration spillTtl;
  private final int hotThreshold;
  /** What the keys not set keep, with the options that have no key (sketch, registry size). */
  private final BoundedOptions defaults;

  BoundedSettings(SettingsReader r) {
    this(r, BoundedOptions.disabled());
  }

  /** The keys set in {@code r}, the others taken from {@code defaults}. */
  BoundedSettings(SettingsReader r, BoundedOptions defaults) {
    this.defaults = defaults;
    enabled = BOUNDED_ENABLED_KEY.bool(r, defaults.enabled());
    epsilon = BOUNDED_EPSILON_KEY.decimal(r, defaults.epsilon());
    probeLimit = BOUNDED_PROBE_LIMIT_KEY.integer(r, defaults.probeLimit());
    scope = BOUNDED_SCOPE_KEY.choice(r, defaults.scope().id());
    int before = r.problems().size();
    Duration w = BOUNDED_WINDOW_KEY.duration(r, defaults.window());
    Duration res = BOUNDED_RESOLUTION_KEY.duration(r, defaults.resolution());
    boolean valid = r.problems().size() == before && checkWindow(r, w, res);
    window = valid ? w : defaults.window();
    resolution = valid ? res : defaults.resolution();
    spillTtl = BOUNDED_SPILL_TTL_KEY.duration(r, defaults.spillTtl());
    hotThreshold = BOUNDED_HOT_THRESHOLD_KEY.integer(r, defaults.hotThreshold());
  }

  /** Whether the window holds a whole number of resolution steps, at most 1000; else a problem. */
  private static boolean checkWindow(SettingsReader r, Duration window, Duration resolution) {
    long w = window.toNanos();
    long res = resolution.toNanos();
    if (res > w || w % res != 0) {
      r.problem(
          BOUNDED_WINDOW,
          "must be a whole multiple of "
              + PREFIX
              + BOUNDED_RESOLUTION
              + " ("
              + SettingsReader.format(resolution)
              + ") but was "
              + SettingsReader.format(window));
      return false;
    }
    if (w / res > 1000) {
      r.problem(
          BOUNDED_WINDOW,
          "must hold at most 1000 steps of "
              + PREFIX
              + BOUNDED_RESOLUTION
              + " ("
              + SettingsReader.format(resolution)
              + ") but holds "
              + w / res);
      return false;
    }
    return true;
  }

  /** {@code shardwise.bounded.enabled}. */
  boolean enabled() {
    return enabled;
  }

  /** The options these settings make, built anew at each call. */
  BoundedOptions options() {
    return defaults
        .mutate()
        .enabled(enabled)
        .epsilon(epsilon)
        .probeLimit(probeLimit)
        .scope(BoundedOptions.Scope.of(scope))
        .window(window)
        .resolution(resolution)
        .spillTtl(spillTtl)
        .hotThreshold(hotThreshold)
        .build();
  }
}

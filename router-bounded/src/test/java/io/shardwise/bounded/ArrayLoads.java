package io.shardwise.bounded;

/** A load view over an array; the total is the sum of the loads unless set explicitly. */
final class ArrayLoads implements LoadView {

  private final long[] loads;
  private final boolean[] down;
  private boolean totalSet;
  private long explicitTotal;

  private ArrayLoads(long[] loads) {
    this.loads = loads;
    this.down = new boolean[loads.length];
  }

  static ArrayLoads of(long... loads) {
    return new ArrayLoads(loads.clone());
  }

  static ArrayLoads zeros(int n) {
    return new ArrayLoads(new long[n]);
  }

  ArrayLoads down(int... nodes) {
    for (int node : nodes) {
      down[node] = true;
    }
    return this;
  }

  ArrayLoads total(long total) {
    explicitTotal = total;
    totalSet = true;
    return this;
  }

  void add(int node) {
    loads[node]++;
  }

  @Override
  public long load(int node) {
    return loads[node];
  }

  @Override
  public long total() {
    if (totalSet) {
      return explicitTotal;
    }
    long sum = 0;
    for (long load : loads) {
      sum += load;
    }
    return sum;
  }

  @Override
  public boolean isAvailable(int node) {
    return !down[node];
  }
}

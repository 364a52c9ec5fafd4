package dev.idempotent.benchmarks;

import dev.idempotent.redisson.internal.RecordFormat;
import dev.idempotent.redisson.internal.RecordNames;
import dev.idempotent.redisson.internal.RecordScript;
import dev.idempotent.spi.RecordKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;

/**
 * What the store's scripts cost the Redis server, against the hand-written floor's ({@link
 * RedisFloor}): each step (claim of new keys, completion of those claims, replay of the completed
 * records) is sent {@code count} times, pipelined, with the server's command statistics reset
 * before, and the report prints the server time per call (an {@code EVALSHA} with its inner
 * commands, or a plain {@code GET}) and the commands each call ran, as {@code INFO commandstats}
 * gives them. The store's steps use its own scripts, record names ({@link RecordNames}) and values
 * ({@link RecordFormat}); both sides complete with the same 200-byte outcome. The steps alternate,
 * {@code repetitions} times; the report gives the median and every repetition.
 *
 * <p>It resets the server's statistics ({@code CONFIG RESETSTAT}): run it on a Redis of your own or
 * when nothing else reads them. Its keys expire after 30 s.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.idempotent.benchmarks.RedisScriptCost \
 *     redis://127.0.0.1:6379 50000 3
 * </pre>
 */
public final class RedisScriptCost {
  private static final String LEASE_MS = "30000";
  private static final String TTL_MS = "30000";
  private static final String SCOPE =
      "com.example.orders.OrderService.submit(com.example.orders.SubmitRequest)";

  private RedisScriptCost() {}

  /** One measured step: its name and, per repetition, µs per call and commands per call. */
  private record Step(String name, List<Double> micros, Map<String, Double> commands) {}

  public static void main(String[] args) throws Exception {
    String url =
        args.length > 0 ? args[0] : BenchmarkSettings.address(BenchmarkSettings.REDIS_URL_VARIABLE);
    int count = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
    int repetitions = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    RecordNames names = new RecordNames("bench:cost:");
    byte[] outcome = new byte[200];
    Arrays.fill(outcome, (byte) 'x');
    Map<String, Step> steps = new LinkedHashMap<>();
    try (RespPipe pipe = new RespPipe(url)) {
      String floorClaim = pipe.command("SCRIPT", "LOAD", RedisFloor.CLAIM);
      String floorComplete = pipe.command("SCRIPT", "LOAD", RedisFloor.COMPLETE);
      String floorRead = pipe.command("SCRIPT", "LOAD", RedisFloor.READ);
      for (RecordScript s : new RecordScript[] {RecordScript.CLAIM, RecordScript.COMPLETE}) {
        pipe.command("SCRIPT", "LOAD", s.source());
      }
      for (int r = 0; r < repetitions; r++) {
        String run = Long.toString(System.nanoTime(), 36);
        String[] floor = names(count, i -> "bench:cost:floor:" + run + ":" + i);
        RecordKey[] keys = keys(count, run + "o");
        String[] ours = names(count, i -> names.recordName(keys[(int) i]));
        measure(
            pipe,
            steps,
            "claim, floor",
            "evalsha",
            count,
            i -> new Object[] {"EVALSHA", floorClaim, "1", floor[(int) i], owner(i), LEASE_MS});
        measure(pipe, steps, "claim, ours", "evalsha", count, claim(ours, 0));
        measure(
            pipe,
            steps,
            "complete, floor",
            "evalsha",
            count,
            i ->
                new Object[] {
                  "EVALSHA", floorComplete, "1", floor[(int) i], owner(i), TTL_MS, outcome
                });
        measure(
            pipe,
            steps,
            "complete, ours",
            "evalsha",
            count,
            i ->
                new Object[] {
                  "EVALSHA",
                  RecordScript.COMPLETE.sha(),
                  "1",
                  ours[(int) i],
                  RecordFormat.ownerPart(owner(i)),
                  TTL_MS,
                  RecordFormat.ownerDigestBytes(owner(i)),
                  outcome
                });
        measure(
            pipe,
            steps,
            "replay, floor (reading script)",
            "evalsha",
            count,
            i -> new Object[] {"EVALSHA", floorRead, "1", floor[(int) i]});
        measure(
            pipe,
            steps,
            "replay, floor (plain GET)",
            "get",
            count,
            i -> new Object[] {"GET", floor[(int) i]});
        measure(
            pipe,
            steps,
            "replay, floor (its claim script on the completed key)",
            "evalsha",
            count,
            i ->
                new Object[] {
                  "EVALSHA", floorClaim, "1", floor[(int) i], owner(i + count), LEASE_MS
                });
        measure(
            pipe,
            steps,
            "replay, ours (the claim of a completed record)",
            "evalsha",
            count,
            claim(ours, count));
      }
    }
    print(steps, count, repetitions);
  }

  /** The store's claim of the record {@code names[i]} by the owner {@code i + ownerFrom}. */
  private static LongFunction<Object[]> claim(String[] names, long ownerFrom) {
    return i ->
        new Object[] {
          "EVALSHA",
          RecordScript.CLAIM.sha(),
          "1",
          names[(int) i],
          RecordFormat.claim(RecordFormat.ownerPart(owner(i + ownerFrom)), null),
          LEASE_MS
        };
  }

  private static String owner(long i) {
    return "4fzyo82mgbcs:" + (1_000_000 + i);
  }

  private static String[] names(int count, LongFunction<String> name) {
    String[] out = new String[count];
    for (int i = 0; i < count; i++) {
      out[i] = name.apply(i);
    }
    return out;
  }

  private static RecordKey[] keys(int count, String run) {
    RecordKey[] out = new RecordKey[count];
    for (int i = 0; i < count; i++) {
      out[i] = RecordKey.of(SCOPE, run + "-" + i);
    }
    return out;
  }

  private static void measure(
      RespPipe pipe,
      Map<String, Step> steps,
      String name,
      String sent,
      int count,
      LongFunction<Object[]> command)
      throws Exception {
    pipe.command("CONFIG", "RESETSTAT");
    pipe.stream(count, command);
    Map<String, long[]> stats = commandStats(pipe.command("INFO", "commandstats"));
    long[] calls = "get".equals(sent) ? stats.get(sent) : stats.remove(sent);
    if (calls == null || calls[0] < count) {
      throw new IllegalStateException(
          name + ": the server counted " + (calls == null ? 0 : calls[0]) + " " + sent);
    }
    Step step = steps.computeIfAbsent(name, n -> new Step(n, new ArrayList<>(), new TreeMap<>()));
    step.micros().add((double) calls[1] / calls[0]);
    stats.remove("config");
    stats.remove("info");
    stats.forEach(
        (inner, v) -> {
          if (v[0] >= count / 2) {
            step.commands().merge(inner.toUpperCase(), (double) v[0] / count, Math::max);
          }
        });
  }

  /** {@code command -> {calls, usec}} from {@code INFO commandstats}. */
  private static Map<String, long[]> commandStats(String info) {
    Map<String, long[]> out = new TreeMap<>();
    for (String line : info.split("\r?\n")) {
      if (!line.startsWith("cmdstat_")) {
        continue;
      }
      String command = line.substring("cmdstat_".length(), line.indexOf(':'));
      long calls = 0;
      long usec = 0;
      for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
        String[] kv = field.split("=", 2);
        if (kv[0].equals("calls")) {
          calls = Long.parseLong(kv[1]);
        } else if (kv[0].equals("usec")) {
          usec = Long.parseLong(kv[1]);
        }
      }
      out.put(command, new long[] {calls, usec});
    }
    return out;
  }

  private static void print(Map<String, Step> steps, int count, int repetitions) {
    System.out.printf(
        "Server time per call (an EVALSHA with its inner commands, or a GET), %,d calls per step,"
            + " %d repetitions:%n%n",
        count, repetitions);
    System.out.println("| step | µs per call (median) | repetitions | commands per call |");
    System.out.println("|---|--:|---|---|");
    for (Step s : steps.values()) {
      List<Double> sorted = new ArrayList<>(s.micros());
      sorted.sort(null);
      StringBuilder commands = new StringBuilder();
      s.commands()
          .forEach(
              (c, n) ->
                  commands
                      .append(commands.length() == 0 ? "" : ", ")
                      .append(c)
                      .append(
                          n == Math.rint(n)
                              ? String.format(" %.0f", n)
                              : String.format(" %.2f", n)));
      StringBuilder each = new StringBuilder();
      for (double m : s.micros()) {
        each.append(each.length() == 0 ? "" : ", ").append(String.format("%.2f", m));
      }
      System.out.printf(
          "| %s | %.2f | %s | %s |%n", s.name(), sorted.get(sorted.size() / 2), each, commands);
    }
  }
}

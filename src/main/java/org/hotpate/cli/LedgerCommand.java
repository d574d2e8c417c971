package org.hotpate.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.hotpate.core.util.Decimals;
import org.hotpate.io.KafkaIo;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.TeacherSpend;
import org.hotpate.protocol.DatasetPrior;
import org.hotpate.protocol.IndividualScheme;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobOptions;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.config.Topic;
import org.hotpate.stream.driver.DatasetHolds;
import org.hotpate.stream.driver.KafkaClients;
import org.hotpate.stream.driver.KafkaLedgerStore;
import org.hotpate.stream.driver.LedgerStore;
import org.hotpate.stream.driver.LedgerStores;
import org.hotpate.stream.driver.LocalLedgerStore;

/**
 * {@code ./hotpate ledger show}: the durable per-dataset budget ledger — per dataset, every run
 * with its mechanism, releases and own ε, and the ε of all runs composed (RDP curves added order by
 * order, converted at δ). {@code ./hotpate ledger teachers}: per-teacher spending of scheme-a/b
 * runs (a run's teachers.jsonl or a dataset's teacher entries). Operator-only data.
 */
public final class LedgerCommand implements Command {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String name() {
        return "ledger";
    }

    @Override
    public String summary() {
        return "show the durable per-dataset privacy budget ledger (every run, composed ε)";
    }

    @Override
    public String help() {
        return """
                usage: ./hotpate ledger show [--dataset ID] [--ledger-dir DIR | --bootstrap HOST:PORT [--topic T] | --spec SPEC.yaml] [--delta D] [--json]

                Prints the durable budget ledger: per dataset, each run's mechanism, releases
                and epsilon (at its own delta), and the epsilon of all runs composed (their RDP
                curves added order by order, converted at --delta, default the smallest delta
                of the dataset's runs). A run of a non-private mechanism makes the composed
                epsilon infinite (shown as null / "none").

                  --dataset ID       only this dataset (default: all)
                  --ledger-dir DIR   a local ledger (budget.ledger: local; default ~/.hotpate/ledger)
                  --bootstrap B      a Kafka ledger (budget.ledger: kafka), read read_committed
                  --topic T          its topic (default hotpate.budget-ledger)
                  --spec SPEC.yaml   take the ledger (mode, directory or bootstrap, topic, SASL
                                     client settings) from a job spec; --dataset defaults to its
                                     budget.dataset
                  --delta D          convert the composed curve at this delta
                  --json             one JSON object instead of the table

                usage: ./hotpate ledger teachers (--run DIR | --dataset ID [--ledger-dir DIR | --bootstrap HOST:PORT [--topic T] | --spec SPEC.yaml]) [--json]

                Per-teacher spending of a per-teacher run (mechanism scheme-b / scheme-a):
                each charged teacher's epsilon (at the per-teacher target delta, under
                replace-one: against a replacement charged up to the limit), its add/remove
                reading (epsilonAddRemove, for comparison only), charges and whether it is
                retired. --run reads the run directory's teachers.jsonl;
                --dataset reads the durable ledger (every run on the dataset). OPERATOR-ONLY:
                per-teacher spending depends on the teachers' data; never publish it.
                """;
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        CliArgs a =
                CliArgs.parse(
                        args,
                        Set.of(
                                "dataset",
                                "ledger-dir",
                                "bootstrap",
                                "topic",
                                "spec",
                                "delta",
                                "run"),
                        Set.of("json"));
        List<String> pos = a.positional();
        if (pos.size() == 1 && pos.get(0).equals("teachers")) {
            return teachers(a, out);
        }
        if (pos.size() != 1 || !pos.get(0).equals("show")) {
            throw new UsageException("expected the sub-command 'show' or 'teachers' (see --help)");
        }
        if (a.has("spec") && (a.has("ledger-dir") || a.has("bootstrap"))) {
            throw new UsageException("give --spec, or --ledger-dir / --bootstrap, not both");
        }
        if (a.has("ledger-dir") && a.has("bootstrap")) {
            throw new UsageException("give --ledger-dir or --bootstrap, not both");
        }
        String dataset = a.string("dataset", null);
        List<BudgetRecord> records;
        String where;
        // Who holds each dataset now (a live driver, or an orphaned cluster job: issue 31).
        java.util.function.Function<String, java.util.Optional<DatasetHolds.Hold>> holders;
        if (a.has("spec")) {
            JobConfig cfg = RunCommand.load(Path.of(a.string("spec", null)), null);
            dataset = dataset == null ? cfg.datasetId() : dataset;
            LedgerStore store = specStore(cfg);
            where = store.where();
            records = store.runs(dataset); // as the run composes it
            holders = store::holder;
        } else {
            LedgerStore store = flagStore(a);
            where = store.where();
            records = store.runs(dataset);
            holders = store::holder;
        }
        String only = dataset;
        Map<String, List<BudgetRecord>> byDataset =
                records.stream()
                        .filter(r -> only == null || r.dataset().equals(only))
                        .collect(
                                Collectors.groupingBy(
                                        BudgetRecord::dataset, TreeMap::new, Collectors.toList()));
        Double delta = a.has("delta") ? a.doubleValue("delta", null) : null;
        if (delta != null && !(delta > 0 && delta < 1)) {
            throw new UsageException("--delta must be in (0, 1); got " + delta);
        }
        ObjectNode report = report(where, byDataset, delta);
        markHolders(report, holders, dataset);
        if (a.flag("json")) {
            out.println(JSON.writeValueAsString(report));
        } else {
            out.print(table(report));
        }
        return 0;
    }

    /** {@code ledger teachers}: a run's teachers.jsonl, or a dataset's teacher entries. */
    private static int teachers(CliArgs a, PrintStream out) throws Exception {
        List<ObjectNode> rows = new java.util.ArrayList<>();
        String where;
        if (a.has("run")) {
            if (a.has("dataset") || a.has("spec") || a.has("ledger-dir") || a.has("bootstrap")) {
                throw new UsageException("give --run DIR or --dataset ID, not both");
            }
            Path file = Path.of(a.string("run", null)).resolve("teachers.jsonl");
            if (!java.nio.file.Files.isRegularFile(file)) {
                throw new UsageException(
                        file + " does not exist (a run directory of a scheme-a/scheme-b run)");
            }
            where = "run " + file;
            for (String line : java.nio.file.Files.readAllLines(file)) {
                if (!line.isBlank()) {
                    rows.add((ObjectNode) JSON.readTree(line));
                }
            }
        } else {
            List<TeacherSpend> spends;
            String dataset = a.string("dataset", null);
            if (a.has("spec")) {
                JobConfig cfg = RunCommand.load(Path.of(a.string("spec", null)), null);
                dataset = dataset == null ? cfg.datasetId() : dataset;
                LedgerStore store = specStore(cfg);
                where = store.where();
                spends = store.teachers(dataset);
            } else if (dataset == null) {
                throw new UsageException("ledger teachers needs --run DIR or --dataset ID");
            } else {
                LedgerStore store = flagStore(a);
                where = store.where();
                spends = store.teachers(dataset);
            }
            String only = dataset;
            where = where + " dataset " + only;
            spends.stream()
                    .filter(t -> t.dataset().equals(only))
                    .sorted((x, y) -> Long.compare(x.teacherId(), y.teacherId()))
                    .forEach(
                            t -> {
                                ObjectNode o = JSON.createObjectNode();
                                o.put("teacher", t.teacherId());
                                o.put("epsilon", t.epsilon());
                                IndividualScheme.planFromId(t.plan())
                                        .ifPresent(
                                                p -> {
                                                    o.put(
                                                            "epsilonAddRemove",
                                                            p.epsilonAddRemove(
                                                                    t.charges(), t.delta()));
                                                    o.put("relation", p.relation().label());
                                                });
                                o.put("charges", t.charges());
                                o.put("retired", t.retired());
                                o.put("plan", t.plan());
                                o.put("lastRun", t.runId());
                                // Provisional charges: involvements whose outcome had not come
                                // back when the entry was written; a later run counts them.
                                o.put("pending", t.pending());
                                o.put("chargesWithPending", t.total());
                                o.put("entryVersion", t.version());
                                rows.add(o);
                            });
        }
        ObjectNode report = JSON.createObjectNode();
        report.put("source", where);
        report.put("teachers", rows.size());
        report.put("retired", rows.stream().filter(o -> o.path("retired").asBoolean()).count());
        report.put(
                "maxEpsilon",
                rows.stream().mapToDouble(o -> o.path("epsilon").asDouble()).max().orElse(0));
        report.put("pending", rows.stream().mapToLong(o -> o.path("pending").asLong(0)).sum());
        ArrayNode arr = report.putArray("rows");
        rows.forEach(arr::add);
        if (a.flag("json")) {
            out.println(JSON.writeValueAsString(report));
            return 0;
        }
        StringBuilder sb = new StringBuilder();
        sb.append("per-teacher spending (operator-only): ").append(where).append('\n');
        boolean withPending = rows.stream().anyMatch(o -> o.has("pending"));
        sb.append(
                withPending
                        ? String.format(
                                "  %10s %10s %8s %8s %8s%n",
                                "teacher", "epsilon", "charges", "pending", "retired")
                        : String.format(
                                "  %10s %10s %8s %8s%n",
                                "teacher", "epsilon", "charges", "retired"));
        for (ObjectNode o : rows) {
            sb.append(
                    withPending
                            ? String.format(
                                    "  %10d %10s %8d %8d %8s%n",
                                    o.path("teacher").asLong(),
                                    Decimals.up(o.path("epsilon").asDouble(), 4),
                                    o.path("charges").asLong(),
                                    o.path("pending").asLong(),
                                    o.path("retired").asBoolean() ? "yes" : "no")
                            : String.format(
                                    "  %10d %10s %8d %8s%n",
                                    o.path("teacher").asLong(),
                                    Decimals.up(o.path("epsilon").asDouble(), 4),
                                    o.path("charges").asLong(),
                                    o.path("retired").asBoolean() ? "yes" : "no"));
        }
        sb.append(
                String.format(
                        "  %d teacher(s) charged, %d retired, max epsilon %s%n",
                        rows.size(),
                        report.get("retired").asLong(),
                        Decimals.up(report.get("maxEpsilon").asDouble(), 4)));
        if (withPending && report.get("pending").asLong() > 0) {
            sb.append(
                    String.format(
                            "  %d pending involvement(s): provisional charges (outcomes not"
                                    + " applied when the entry was written); the next run on the"
                                    + " dataset counts them as charges%n",
                            report.get("pending").asLong()));
        }
        out.print(sb);
        return 0;
    }

    static ObjectNode report(String where, Map<String, List<BudgetRecord>> byDataset, Double at) {
        ObjectNode r = JSON.createObjectNode();
        r.put("ledger", where);
        ArrayNode datasets = r.putArray("datasets");
        for (Map.Entry<String, List<BudgetRecord>> e : byDataset.entrySet()) {
            List<BudgetRecord> runs =
                    e.getValue().stream()
                            .sorted((x, y) -> Long.compare(x.updatedAtMs(), y.updatedAtMs()))
                            .toList();
            double delta =
                    at != null
                            ? at
                            : runs.stream().mapToDouble(BudgetRecord::delta).min().orElse(1e-6);
            ObjectNode d = datasets.addObject();
            d.put("dataset", e.getKey());
            ArrayNode arr = d.putArray("runs");
            for (BudgetRecord b : runs) {
                ObjectNode o = arr.addObject();
                o.put("runId", b.runId());
                o.put("mechanism", b.mechanism());
                o.put("private", b.differentiallyPrivate());
                o.put("releases", b.releases());
                number(o, "epsilon", b.differentiallyPrivate() ? b.epsilon() : Double.NaN);
                o.put("delta", b.delta());
                o.put("updatedAtMs", b.updatedAtMs());
            }
            d.put("runCount", runs.size());
            number(d, "epsilon", DatasetPrior.compose(e.getKey(), runs, null).epsilon(delta));
            // Progress at the dataset filter's fixed order; without a dataset cap no order was
            // fixed in advance, and the minimum over orders is not valid after adaptive releases.
            d.put(
                    "epsilonMeaning",
                    runs.stream().anyMatch(b -> b.datasetPlan().length > 0)
                            ? "spent so far at the dataset's fixed order (progress); the guarantee"
                                    + " is the dataset cap planned at its first use"
                            : "none: no dataset cap, so no order was fixed in advance for the"
                                    + " composition; each run's epsilon is at its own filter's"
                                    + " order");
            d.put("delta", delta);
        }
        return r;
    }

    /**
     * Marks the run holding each dataset (a live driver, or an orphaned cluster job that may still
     * spend: issue 31); a holder without an entry yet gets a row of its own.
     */
    private static void markHolders(
            ObjectNode report,
            java.util.function.Function<String, java.util.Optional<DatasetHolds.Hold>> holders,
            String only) {
        ArrayNode datasets = (ArrayNode) report.get("datasets");
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (var d : datasets) {
            seen.add(d.get("dataset").asText());
            holders.apply(d.get("dataset").asText()).ifPresent(h -> markHolder((ObjectNode) d, h));
        }
        if (only != null && !seen.contains(only)) {
            holders.apply(only)
                    .ifPresent(
                            h -> {
                                ObjectNode d = datasets.addObject();
                                d.put("dataset", only);
                                d.putArray("runs");
                                d.put("runCount", 0);
                                d.putNull("epsilon");
                                d.put("epsilonMeaning", "no release recorded yet");
                                d.put("delta", 0.0);
                                markHolder(d, h);
                            });
        }
    }

    private static void markHolder(ObjectNode d, DatasetHolds.Hold h) {
        ObjectNode held = d.putObject("heldBy");
        held.put("runId", h.runId());
        held.put("status", h.status());
        held.put("orphaned", h.orphaned());
        for (var o : d.get("runs")) {
            if (o.get("runId").asText().equals(h.runId())) {
                ((ObjectNode) o).put("status", h.status());
            }
        }
    }

    private static void number(ObjectNode o, String key, double v) {
        if (Double.isFinite(v)) {
            o.put(key, v);
        } else {
            o.putNull(key);
        }
    }

    private static String table(ObjectNode report) {
        StringBuilder sb = new StringBuilder();
        sb.append("budget ledger: ").append(report.get("ledger").asText()).append('\n');
        if (report.get("datasets").isEmpty()) {
            sb.append("  (no runs)\n");
        }
        for (var d : report.get("datasets")) {
            sb.append("\ndataset ").append(d.get("dataset").asText()).append('\n');
            sb.append(
                    String.format(
                            "  %-44s %-24s %-7s %9s %10s %9s%n",
                            "run", "mechanism", "private", "releases", "epsilon", "delta"));
            for (var o : d.get("runs")) {
                sb.append(
                        String.format(
                                "  %-44s %-24s %-7s %9d %10s %9s%n",
                                o.get("runId").asText(),
                                o.get("mechanism").asText(),
                                o.get("private").asBoolean() ? "yes" : "NO",
                                o.get("releases").asLong(),
                                fmt(o.get("epsilon")),
                                o.get("delta").asText()));
            }
            if (d.has("heldBy")) {
                sb.append(
                        String.format(
                                "  held by run %s: %s%n",
                                d.get("heldBy").get("runId").asText(),
                                d.get("heldBy").get("status").asText()));
            }
            sb.append(
                    String.format(
                            "  all %d run(s) composed: epsilon %s at delta %s (%s)%n",
                            d.get("runCount").asInt(),
                            fmt(d.get("epsilon")),
                            d.get("delta").asText(),
                            d.get("epsilonMeaning").asText()));
        }
        return sb.toString();
    }

    private static String fmt(com.fasterxml.jackson.databind.JsonNode n) {
        return n == null || n.isNull() ? "none" : Decimals.up(n.asDouble(), 4); // never below
    }

    /**
     * The ledger store of a spec ({@link LedgerStores}), with the job principal's Kafka client when
     * the store is on the run's Kafka.
     */
    private static LedgerStore specStore(JobConfig cfg) {
        if (!LedgerStores.of(cfg, null).onRunBroker()) {
            return LedgerStores.of(cfg, null);
        }
        if (cfg.kafka().embedded()) {
            throw new UsageException("the spec's ledger is on Kafka but kafka.mode is embedded");
        }
        try {
            return LedgerStores.of(
                    cfg, KafkaClients.job(cfg, cfg.kafka().bootstrap(), KafkaClients.ENV));
        } catch (JobSpec.SpecException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /**
     * The store named by the flags: {@code --bootstrap} (and {@code --topic}: the topic alone),
     * else {@code --ledger-dir} or its default.
     */
    private static LedgerStore flagStore(CliArgs a) {
        if (a.has("bootstrap")) {
            String bootstrap = a.string("bootstrap", null);
            return new KafkaLedgerStore(
                    KafkaIo.clientProperties(bootstrap, new Properties()),
                    a.string("topic", Topic.BUDGET_LEDGER.defaultName()),
                    bootstrap,
                    1,
                    null);
        }
        return new LocalLedgerStore(ledgerDir(a).toAbsolutePath(), null, null);
    }

    /**
     * {@code --ledger-dir}, else the default of {@code budget.ledger-dir} (~ = the user's home).
     */
    private static Path ledgerDir(CliArgs a) {
        return JobConfig.expandHome(
                a.string("ledger-dir", JobOptions.BUDGET_LEDGER_DIR.defaultValue()));
    }
}

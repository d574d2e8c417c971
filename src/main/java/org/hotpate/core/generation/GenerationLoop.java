package org.hotpate.core.generation;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.mechanism.Release;
import org.hotpate.core.randomness.SeedDerivation;
import org.hotpate.core.randomness.StepRandomness;
import org.hotpate.core.sampling.TeacherDistribution;

/**
 * Generates text from public prompts with one {@link TextGenerationMethod} until an
 * accountant-backed budget runs out — the in-process counterpart of the streaming job's sequence
 * loop, so hot PATE, cold PATE and PMixED are compared on equal terms: same prompts (in order, one
 * sequence at a time), same teachers, same public model, same public step seeds ({@code
 * SeedDerivation.stepSeed(runSeed, promptId, position, attempt)}), same (ε, δ) filter.
 *
 * <p>Before every step the {@link EnsembleBudgetFilter} must afford the method's worst-case event;
 * otherwise generation stops (finish reason {@link FinishReason#BUDGET_EXHAUSTED}) and no later
 * prompt runs. After the release its realized event is charged — once — before the token is
 * appended. On ⊥: {@link FailPolicy#RESAMPLE} retries the position with the next attempt (a new
 * public seed and a new charged query) up to {@code maxAttempts}, then ends the sequence; {@link
 * FailPolicy#FALLBACK} appends a token of the public model drawn with public randomness (no private
 * data, no charge); {@link FailPolicy#STOP} ends the sequence.
 *
 * <p>Refuses methods that are not differentially private: their output must never be counted as
 * private. Not thread-safe (the filter is mutable); one loop per method and budget.
 */
public final class GenerationLoop {
    private static final long FALLBACK_KEY = SeedDerivation.teacherKey("public-fallback");

    private GenerationLoop() {}

    /** The teachers: n, and teacher i's next-token distribution after a prefix. */
    public interface Teachers {
        int size();

        /** Teacher {@code teacher}'s distribution after {@code prefix} (prompt + generated). */
        TeacherDistribution next(int teacher, int[] prefix);
    }

    /** The public model's next-token distribution after a prefix (no private data). */
    @FunctionalInterface
    public interface PublicModel {
        PublicDistribution next(int[] prefix);
    }

    /** A public prompt (its id names the sequence in the step seed). */
    public record Prompt(String id, int[] tokens) {
        public Prompt {
            checkNotNull("id", id);
            tokens = checkNotNull("tokens", tokens).clone();
        }

        @Override
        public int[] tokens() {
            return tokens.clone();
        }
    }

    /**
     * Loop options.
     *
     * @param runSeed the run's public seed (step seeds derive from it)
     * @param maxNewTokens the most tokens appended to a prompt
     * @param stopToken a token that ends the sequence when produced, or −1 for none
     * @param onFail the ⊥ policy
     * @param maxAttempts attempts per position under {@link FailPolicy#RESAMPLE} (≥ 1)
     */
    public record Options(
            long runSeed, int maxNewTokens, int stopToken, FailPolicy onFail, int maxAttempts) {
        public Options {
            checkPositive("maxNewTokens", maxNewTokens);
            checkArgument(stopToken >= -1, "stopToken must be >= -1; got " + stopToken);
            checkNotNull("onFail", onFail);
            checkPositive("maxAttempts", maxAttempts);
        }
    }

    /**
     * One generated sequence: the appended tokens, and for each whether it came from the private
     * aggregate ({@code fromTeachers}) or the public fallback.
     */
    public record Sequence(
            String id,
            int[] prompt,
            int[] generated,
            boolean[] fromTeachers,
            int steps,
            int fails,
            FinishReason finish) {
        public int privateTokens() {
            int c = 0;
            for (boolean b : fromTeachers) {
                c += b ? 1 : 0;
            }
            return c;
        }
    }

    /** All sequences of one method, with totals and the ε the filter reports as spent. */
    public record Result(
            String method,
            List<Sequence> sequences,
            long steps,
            long privateTokens,
            long fails,
            long fallbacks,
            double spentEpsilon,
            boolean budgetExhausted) {}

    /** Runs {@code method} over {@code prompts} until done or the budget refuses a step. */
    public static Result run(
            TextGenerationMethod method,
            List<Prompt> prompts,
            Teachers teachers,
            PublicModel publicModel,
            int vocabularySize,
            EnsembleBudgetFilter budget,
            Options options) {
        checkNotNull("method", method);
        checkNotNull("prompts", prompts);
        checkNotNull("teachers", teachers);
        checkNotNull("publicModel", publicModel);
        checkPositive("vocabularySize", vocabularySize);
        checkNotNull("budget", budget);
        checkNotNull("options", options);
        checkArgument(
                method.isDifferentiallyPrivate(),
                "method "
                        + method.name()
                        + " is not differentially private; it cannot run under a privacy budget");
        List<Sequence> out = new ArrayList<>();
        boolean exhausted = false;
        for (Prompt p : prompts) {
            Sequence s =
                    exhausted
                            ? new Sequence(
                                    p.id(),
                                    p.tokens(),
                                    new int[0],
                                    new boolean[0],
                                    0,
                                    0,
                                    FinishReason.BUDGET_EXHAUSTED)
                            : generate(
                                    method,
                                    p,
                                    teachers,
                                    publicModel,
                                    vocabularySize,
                                    budget,
                                    options);
            exhausted = s.finish() == FinishReason.BUDGET_EXHAUSTED;
            out.add(s);
        }
        long steps = 0;
        long tokens = 0;
        long fails = 0;
        long fallbacks = 0;
        for (Sequence s : out) {
            steps += s.steps();
            tokens += s.privateTokens();
            fails += s.fails();
            fallbacks += s.generated().length - s.privateTokens();
        }
        return new Result(
                method.name(),
                List.copyOf(out),
                steps,
                tokens,
                fails,
                fallbacks,
                budget.spentEpsilon(),
                exhausted);
    }

    private static Sequence generate(
            TextGenerationMethod method,
            Prompt prompt,
            Teachers teachers,
            PublicModel publicModel,
            int vocabularySize,
            EnsembleBudgetFilter budget,
            Options o) {
        int[] context = prompt.tokens();
        int promptLength = context.length;
        List<Integer> generated = new ArrayList<>();
        List<Boolean> fromTeachers = new ArrayList<>();
        int steps = 0;
        int fails = 0;
        int attempt = 0;
        FinishReason finish = FinishReason.MAX_STEPS;
        while (generated.size() < o.maxNewTokens()) {
            if (!budget.canAfford(method.worstCaseStepEvent())) {
                finish = FinishReason.BUDGET_EXHAUSTED;
                break;
            }
            int position = generated.size();
            long seed = SeedDerivation.stepSeed(o.runSeed(), prompt.id(), position, attempt);
            int[] prefix = context;
            Supplier<PublicDistribution> p0 = memo(() -> publicModel.next(prefix));
            Release r =
                    method.step(
                            new StepInput(
                                    teachers.size(),
                                    i -> teachers.next(i, prefix),
                                    p0,
                                    seed,
                                    vocabularySize));
            budget.charge(r.event());
            steps++;
            int token;
            if (!r.isFail()) {
                token = r.token().getAsInt();
                fromTeachers.add(true);
            } else {
                fails++;
                if (o.onFail() == FailPolicy.RESAMPLE && attempt + 1 < o.maxAttempts()) {
                    attempt++;
                    continue;
                }
                if (o.onFail() != FailPolicy.FALLBACK) {
                    finish = FinishReason.FAIL_STOP;
                    break;
                }
                double u = StepRandomness.forStep(seed, 0).independentUniform(FALLBACK_KEY);
                token = p0.get().inverseCdf(u);
                fromTeachers.add(false);
            }
            attempt = 0;
            generated.add(token);
            context = Arrays.copyOf(context, context.length + 1);
            context[context.length - 1] = token;
            if (token == o.stopToken()) {
                finish = FinishReason.STOP_TOKEN;
                break;
            }
        }
        boolean[] flags = new boolean[fromTeachers.size()];
        for (int i = 0; i < flags.length; i++) {
            flags[i] = fromTeachers.get(i);
        }
        return new Sequence(
                prompt.id(),
                Arrays.copyOf(context, promptLength),
                generated.stream().mapToInt(Integer::intValue).toArray(),
                flags,
                steps,
                fails,
                finish);
    }

    private static <T> Supplier<T> memo(Supplier<T> s) {
        return new Supplier<>() {
            private T value;

            @Override
            public T get() {
                if (value == null) {
                    value = s.get();
                }
                return value;
            }
        };
    }
}

package org.hotpate.teachers.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.hotpate.teachers.text.Tokenizer;

/**
 * The OpenAI-compatible {@code /v1/completions} exchange of an HTTP teacher (pure; docs/records.md
 * lists the fields). Request: {@code {"model", "prompt", "max_tokens": 1, "logprobs": K,
 * "temperature": 1, "echo": false}}. Response: the top-K log-probabilities of the first generated
 * token, in either shape servers use —
 *
 * <ul>
 *   <li>legacy (OpenAI completions, vLLM): {@code choices[0].logprobs.top_logprobs[0]} = object
 *       token → logprob;
 *   <li>newer (llama.cpp server, OpenAI chat-style): {@code choices[0].logprobs.content[0]
 *       .top_logprobs} = list of {@code {"token", "logprob"}}.
 * </ul>
 *
 * Token strings map to ids with the run's tokenizer: a string that is exactly one token becomes
 * that id; any other string is dropped and its probability mass abstains (the vote's residual).
 */
public final class CompletionProtocol {
    private CompletionProtocol() {}

    private static final ObjectMapper JSON = new ObjectMapper();

    /** vLLM's {@code return_tokens_as_token_ids} spelling of a token. */
    public static final String TOKEN_ID_PREFIX = "token_id:";

    /** The request body (one text prompt, top-K log-probabilities). */
    public static String request(String model, String prompt, int topK) {
        return request(model, List.of(prompt), topK, false, OptionalLong.empty());
    }

    /**
     * The request body for one or more prompts, each a {@code String} or an {@code int[]} of token
     * ids (one prompt is sent alone, several as a list: the completions API answers prompt i in
     * {@code choices[].index} i). {@code tokenIds} asks for {@code return_tokens_as_token_ids}
     * (vLLM). With a {@code seed} the request asks for one seeded sample per prompt ({@code seed},
     * {@code n: 1}, {@code logprobs: 0}: the sampled token only) instead of the top-K.
     */
    public static String request(
            String model, List<?> prompts, int topK, boolean tokenIds, OptionalLong seed) {
        ObjectNode o = JSON.createObjectNode();
        o.put("model", model);
        if (prompts.size() == 1) {
            putPrompt(o, "prompt", prompts.get(0));
        } else {
            ArrayNode list = o.putArray("prompt");
            for (Object p : prompts) {
                addPrompt(list, p);
            }
        }
        o.put("max_tokens", 1);
        o.put("temperature", 1);
        o.put("top_p", 1);
        o.put("n", 1);
        o.put("echo", false);
        if (seed.isPresent()) {
            o.put("seed", seed.getAsLong());
            o.put("logprobs", 0);
        } else {
            o.put("logprobs", topK);
        }
        if (tokenIds) {
            o.put("return_tokens_as_token_ids", true);
        }
        return o.toString();
    }

    private static void putPrompt(ObjectNode o, String field, Object p) {
        if (p instanceof int[] ids) {
            ArrayNode a = o.putArray(field);
            for (int id : ids) {
                a.add(id);
            }
        } else {
            o.put(field, (String) p);
        }
    }

    private static void addPrompt(ArrayNode list, Object p) {
        if (p instanceof int[] ids) {
            ArrayNode a = list.addArray();
            for (int id : ids) {
                a.add(id);
            }
        } else {
            list.add((String) p);
        }
    }

    /**
     * An http teacher's prompt as token ids (docs/llm-teachers.md): the template filled with the
     * teacher's records is encoded around {@code {prompt}}, and the step's history (the public
     * prompt and the released tokens) goes in as the ids it is — never decoded and re-encoded, so
     * the teacher conditions on exactly the released tokens. With {@code padTokens} > 0 the part
     * before {@code {prompt}} is cut from the left or left-padded with the end-of-text token to
     * exactly that many tokens, so every teacher's prompt of a step has one length.
     */
    public static int[] promptIds(
            Tokenizer tokenizer,
            String template,
            Iterable<String> records,
            int maxChars,
            String label,
            int[] history,
            int padTokens) {
        String marker = "\u0000prompt\u0000";
        String filled = fill(template, records, maxChars, label, marker);
        int at = filled.indexOf(marker);
        String before = at < 0 ? filled : filled.substring(0, at);
        String after = at < 0 ? "" : filled.substring(at + marker.length());
        int[] head = tokenizer.encode(before);
        if (padTokens > 0) {
            int[] padded = new int[padTokens];
            int keep = Math.min(head.length, padTokens);
            java.util.Arrays.fill(padded, 0, padTokens - keep, tokenizer.endOfText());
            System.arraycopy(head, head.length - keep, padded, padTokens - keep, keep);
            head = padded;
        }
        int[] tail = after.isEmpty() ? new int[0] : tokenizer.encode(after);
        int[] hist = at < 0 ? new int[0] : history;
        int[] out = new int[head.length + hist.length + tail.length];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(hist, 0, out, head.length, hist.length);
        System.arraycopy(tail, 0, out, head.length + hist.length, tail.length);
        return out;
    }

    /** A teacher's answer: token ids and probabilities (Σ ≤ 1). */
    public record Answer(int[] tokens, double[] probs, int dropped) {}

    /**
     * Parses a response body into token ids and probabilities; throws IllegalArgumentException when
     * the body has neither shape.
     */
    public static Answer parse(String body, Tokenizer tokenizer) {
        return parseBatch(body, 1, tokenizer, tokenizer.vocabularySize(), false).get(0);
    }

    /**
     * Parses the answers to {@code n} prompts ({@code choices[].index} i answers prompt i; a choice
     * without an index is the i-th): top-K log-probabilities, or with {@code seeded} the one
     * sampled token of each choice as probability 1. Keys {@code "token_id:N"} (vLLM's {@code
     * return_tokens_as_token_ids}) and llama.cpp's {@code id} field are ids as they are; other
     * token strings map through the tokenizer (a string that is not exactly one token is dropped,
     * its mass abstains). Ids at or past {@code vocabularySize} are dropped. Throws
     * IllegalArgumentException when a prompt has no answer or a choice has neither shape.
     */
    public static List<Answer> parseBatch(
            String body, int n, Tokenizer tokenizer, int vocabularySize, boolean seeded) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (Exception e) {
            throw new IllegalArgumentException("response is not JSON: " + e.getMessage());
        }
        JsonNode[] byIndex = new JsonNode[n];
        JsonNode choices = root.path("choices");
        if (choices.isEmpty()) {
            throw new IllegalArgumentException(
                    "response has no choices (expected choices[].logprobs.top_logprobs[0] or"
                            + " choices[].logprobs.content[0].top_logprobs)");
        }
        for (int i = 0; i < choices.size(); i++) {
            JsonNode c = choices.get(i);
            int index = c.path("index").asInt(i);
            if (index >= 0 && index < n && byIndex[index] == null) {
                byIndex[index] = c;
            }
        }
        List<Answer> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            if (byIndex[i] == null) {
                throw new IllegalArgumentException(
                        "response has no choice for prompt " + i + " of " + n);
            }
            out.add(
                    seeded
                            ? sampled(byIndex[i], tokenizer, vocabularySize)
                            : topK(byIndex[i], tokenizer, vocabularySize));
        }
        return out;
    }

    /** The sampled token of a seeded request: probability 1 (the vote is the server's draw). */
    private static Answer sampled(JsonNode choice, Tokenizer tokenizer, int vocabularySize) {
        JsonNode lp = choice.path("logprobs");
        int id = -1;
        if (lp.path("tokens").isArray() && lp.path("tokens").size() > 0) {
            id = tokenId(lp.path("tokens").get(0).asText(), tokenizer); // vLLM, OpenAI legacy
        } else if (lp.path("content").isArray() && lp.path("content").size() > 0) {
            JsonNode c = lp.path("content").get(0); // llama.cpp, chat-style
            id =
                    c.has("id")
                            ? c.path("id").asInt(-1)
                            : tokenId(c.path("token").asText(), tokenizer);
        } else if (choice.path("text").isTextual()) {
            id = tokenizer.singleTokenId(choice.path("text").asText());
        }
        if (id < 0 || id >= vocabularySize) {
            return new Answer(new int[0], new double[0], 1);
        }
        return new Answer(new int[] {id}, new double[] {1.0}, 0);
    }

    private static int tokenId(String token, Tokenizer tokenizer) {
        if (token.startsWith(TOKEN_ID_PREFIX)) {
            try {
                return Integer.parseInt(token.substring(TOKEN_ID_PREFIX.length()));
            } catch (NumberFormatException e) {
                return -1;
            }
        }
        return tokenizer.singleTokenId(token);
    }

    private static Answer topK(JsonNode choice, Tokenizer tokenizer, int vocabularySize) {
        JsonNode lp = choice.path("logprobs");
        Map<Integer, Double> byId = new LinkedHashMap<>();
        int dropped = 0;
        JsonNode legacy = lp.path("top_logprobs").path(0);
        JsonNode content = lp.path("content").path(0).path("top_logprobs");
        List<Map.Entry<Integer, Double>> top = new ArrayList<>();
        if (legacy.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> it = legacy.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                top.add(
                        Map.entry(
                                tokenId(e.getKey(), tokenizer),
                                e.getValue().asDouble(Double.NEGATIVE_INFINITY)));
            }
        } else if (content.isArray()) {
            for (JsonNode e : content) {
                int id =
                        e.has("id")
                                ? e.path("id").asInt(-1)
                                : tokenId(e.path("token").asText(), tokenizer);
                top.add(Map.entry(id, e.path("logprob").asDouble(Double.NEGATIVE_INFINITY)));
            }
        } else {
            throw new IllegalArgumentException(
                    "response has no choices[].logprobs.top_logprobs[0] nor"
                            + " choices[].logprobs.content[0].top_logprobs");
        }
        for (Map.Entry<Integer, Double> e : top) {
            int id = e.getKey();
            double p = Math.exp(e.getValue());
            if (id < 0 || id >= vocabularySize || !(p > 0)) {
                dropped++;
                continue;
            }
            // one token listed twice (a string and an id, or the sampled token repeated): once
            byId.merge(id, p, Math::max);
        }
        int[] tokens = new int[byId.size()];
        double[] probs = new double[byId.size()];
        double sum = 0;
        int i = 0;
        for (Map.Entry<Integer, Double> e : byId.entrySet()) {
            tokens[i] = e.getKey();
            probs[i] = Math.min(1.0, e.getValue());
            sum += probs[i++];
        }
        if (sum > 1.0) { // rounding in the server's logprobs
            for (int j = 0; j < probs.length; j++) {
                probs[j] /= sum;
            }
        }
        // the mass past the server's top-K (its cap) stays unlisted: it abstains in the vote
        return new Answer(tokens, probs, dropped);
    }

    /**
     * Fills a prompt template: {@code {records}} = the teacher's records, one per line, cut to
     * {@code maxChars}; {@code {label}}; {@code {prompt}} = the public prompt and the text
     * generated so far.
     */
    public static String fill(
            String template, Iterable<String> records, int maxChars, String label, String prompt) {
        StringBuilder rs = new StringBuilder();
        for (String r : records) {
            String line = r.replace('\n', ' ');
            if (rs.length() + line.length() + 1 > maxChars) {
                rs.append(line, 0, Math.max(0, maxChars - rs.length()));
                break;
            }
            rs.append(line).append('\n');
        }
        return template.replace("{records}", rs.toString().stripTrailing())
                .replace("{label}", label)
                .replace("{prompt}", prompt);
    }
}

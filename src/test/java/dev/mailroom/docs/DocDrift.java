package dev.mailroom.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Where the docs and the code disagree: the names of {@link CodeNames} against the reference's tables and the
 * runbook's sections. Pure functions of the pages' text, so a test can plant an omission and see it found.
 */
final class DocDrift {

    static final Path REFERENCE = Path.of("docs/reference.md");
    static final Path RUNBOOK = Path.of("docs/runbook.md");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");
    private static final Pattern PLACEHOLDER = Pattern.compile("<[a-z-]+>");
    private static final Pattern ENV = Pattern.compile("\\bMAILROOM_[A-Z0-9_]*[A-Z0-9]\\b");

    /** The pages the drift is read from: the reference, the runbook, and every page an operator reads. */
    record Pages(String reference, String runbook, String all) {

        static Pages read() {
            StringBuilder all = new StringBuilder(CodeNames.read(Path.of("README.md")));
            try (var docs = Files.list(Path.of("docs"))) {
                docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(p -> all.append('\n').append(CodeNames.read(p)));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return new Pages(CodeNames.read(REFERENCE), CodeNames.read(RUNBOOK), all.toString());
        }
    }

    private DocDrift() {
    }

    /** Every disagreement between the code's names and the pages, one readable line each; empty when none. */
    static List<String> problems(Pages pages) {
        List<String> found = new ArrayList<>();
        Set<String> keys = CodeNames.configurationKeys();
        Set<String> documentedKeys = firstColumn(section(pages.reference(), "## Configuration")).stream()
                .filter(k -> k.startsWith("mailroom.") && !k.contains("*")).collect(Collectors.toCollection(TreeSet::new));
        found.addAll(compare("configuration key", keys, documentedKeys, DocDrift::keyMatches));
        Set<String> env = CodeNames.environmentVariables();
        for (String e : env) {
            if (!Pattern.compile("\\b" + e + "\\b").matcher(pages.all()).find()) {
                found.add("environment variable `" + e + "` is read by server-config/ or docker/ but no page names it");
            }
        }
        Set<String> keyEnv = keys.stream().filter(k -> !k.contains("<")).map(DocDrift::environmentForm)
                .collect(Collectors.toSet());
        Matcher m = ENV.matcher(pages.reference());
        while (m.find()) {
            if (!env.contains(m.group()) && !keyEnv.contains(m.group())) {
                found.add("environment variable `" + m.group() + "` is in " + REFERENCE + " but nothing reads it");
            }
        }
        found.addAll(compare("metric", CodeNames.metrics().keySet(),
                firstColumn(section(pages.reference(), "## Metrics")), String::equals));
        found.addAll(compare("alert", CodeNames.alertNames(),
                firstColumn(section(pages.reference(), "## Alerts")), String::equals));
        found.addAll(compare("paused_reason", CodeNames.pausedReasons(),
                firstColumn(section(pages.reference(), "## Paused reasons")), String::equals));
        Set<String> produced = CodeNames.errorCodes();
        for (String code : documentedErrorCodes(pages.all())) {
            if (!produced.contains(code)) {
                found.add("error code `" + code + "` is documented but nothing in the code answers it");
            }
        }
        found.addAll(runbook("alert", CodeNames.alertNames(), section(pages.runbook(), "## Alerts")));
        found.addAll(runbook("paused_reason", CodeNames.pausedReasons(), section(pages.runbook(), "## Paused reasons")));
        return found;
    }

    /** The error codes the pages name with their status: {@code 404 `job_not_found`}, {@code `webhook_stale` 409}. */
    static Set<String> documentedErrorCodes(String text) {
        Set<String> codes = new TreeSet<>();
        for (Pattern p : List.of(Pattern.compile("\\b[45]\\d\\d `([a-z][a-z_]*[a-z])`"),
                Pattern.compile("`([a-z][a-z_]*[a-z])` [45]\\d\\d\\b"),
                Pattern.compile("\\b[45]\\d\\d \\{\"error\": \"([a-z_]+)\"\\}"))) {
            Matcher m = p.matcher(text);
            while (m.find()) {
                codes.add(m.group(1));
            }
        }
        return codes;
    }

    /** Both ways: a name of the code missing from the page, and a name of the page the code no longer has. */
    static List<String> compare(String what, Set<String> inCode, Set<String> documented,
            BiPredicate<String, String> documentedMatchesCode) {
        List<String> found = new ArrayList<>();
        for (String c : inCode) {
            if (documented.stream().noneMatch(d -> documentedMatchesCode.test(d, c))) {
                found.add(what + " `" + c + "` is in the code but not in " + REFERENCE);
            }
        }
        for (String d : documented) {
            if (inCode.stream().noneMatch(c -> documentedMatchesCode.test(d, c))) {
                found.add(what + " `" + d + "` is in " + REFERENCE + " but no longer in the code");
            }
        }
        return found;
    }

    private static List<String> runbook(String what, Set<String> inCode, String section) {
        Set<String> headings = new LinkedHashSet<>();
        Matcher h = Pattern.compile("(?m)^### `([^`]+)`").matcher(section);
        while (h.find()) {
            headings.add(h.group(1));
        }
        List<String> found = new ArrayList<>();
        inCode.stream().filter(n -> !headings.contains(n))
                .forEach(n -> found.add(what + " `" + n + "` has no section in " + RUNBOOK));
        headings.stream().filter(n -> !inCode.contains(n))
                .forEach(n -> found.add(RUNBOOK + " has a section for " + what + " `" + n + "`, which the code no longer has"));
        return found;
    }

    /**
     * Whether the documented key {@code doc} (placeholders such as {@code <queue>} stand for any name) covers the
     * code's key {@code code}. A code key ending in a dot is a prefix: any documented key under it covers it, and a
     * documented key that is the prefix and one placeholder ({@code mailroom.providers.<queue>}) is its key.
     */
    static boolean keyMatches(String doc, String code) {
        if (code.endsWith(".")) {
            return doc.startsWith(code) && (doc.length() > code.length());
        }
        StringBuilder regex = new StringBuilder();
        Matcher p = PLACEHOLDER.matcher(doc);
        int at = 0;
        while (p.find()) {
            regex.append(Pattern.quote(doc.substring(at, p.start()))).append(".+");
            at = p.end();
        }
        regex.append(Pattern.quote(doc.substring(at)));
        return code.matches(regex.toString());
    }

    /** MicroProfile Config's environment form of a key: upper case, every character not alphanumeric an underscore. */
    static String environmentForm(String key) {
        return key.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT);
    }

    /** The text of a page's section, from its heading to the next heading of the same level. */
    static String section(String page, String heading) {
        int start = page.indexOf("\n" + heading + "\n");
        if (start < 0) {
            return "";
        }
        int end = page.indexOf("\n## ", start + heading.length() + 1);
        return page.substring(start, end < 0 ? page.length() : end);
    }

    /** The {@code `code`} names in the first cell of each table row of {@code text}. */
    static Set<String> firstColumn(String text) {
        Set<String> names = new TreeSet<>();
        String[] lines = text.split("\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            boolean header = i + 1 < lines.length && lines[i + 1].startsWith("|---");
            if (!line.startsWith("| ") || header) {
                continue;
            }
            String cell = line.substring(2, Math.max(2, line.indexOf(" |", 1)));
            Matcher c = CODE.matcher(cell);
            while (c.find()) {
                names.add(c.group(1));
            }
        }
        return names;
    }
}

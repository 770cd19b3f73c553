package dev.mailroom.bench;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * One long-lived {@code bin/jboss-cli.sh -c --output-json} session against a running server, fed operations on its
 * stdin. Starting the CLI costs seconds (a JVM); an operation on the open session costs milliseconds, which matters
 * for {@code resume}, the start of a timed run. Authentication is WildFly's local mechanism (same user, same machine),
 * so no management user is needed.
 *
 * <p>Each operation is followed by {@code echo <marker>}; the answer is the JSON printed before the marker.
 */
final class JbossCli implements AutoCloseable {

    /** Starts child processes from one thread that lives as long as the JVM, so {@code --pdeathsig} stays armed. */
    private static final ExecutorService LAUNCHER = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "bench-cli-launcher");
        t.setDaemon(true);
        return t;
    });
    private static final String EOF = "\u0000eof";

    private final ObjectMapper json = new ObjectMapper();
    private final Process process;
    private final BufferedWriter stdin;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Path log;
    private int seq;

    JbossCli(Path serverHome, int managementPort, Path log) {
        this.log = log;
        List<String> cmd = new ArrayList<>();
        String setpriv = findExecutable("setpriv");
        if (setpriv != null) {
            cmd.addAll(List.of(setpriv, "--pdeathsig", "TERM", "--"));
        }
        cmd.addAll(List.of("/bin/sh", serverHome.resolve("bin/jboss-cli.sh").toString(),
                "--controller=127.0.0.1:" + managementPort, "-c", "--timeout=30000", "--output-json"));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(serverHome.toFile()).redirectErrorStream(true);
        pb.environment().put("TERM", "dumb");
        pb.environment().remove("JAVA_OPTS");
        if (pb.environment().get("JAVA_HOME") == null) {
            pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        }
        try {
            Files.createDirectories(log.getParent());
            process = LAUNCHER.submit(pb::start).get();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException("could not start " + cmd, e);
        }
        stdin = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        Thread reader = new Thread(this::pump, "bench-cli-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** Runs one management operation; returns its {@code result}; throws unless the outcome is success. */
    synchronized JsonNode op(String operation) {
        return op(operation, Duration.ofSeconds(90));
    }

    synchronized JsonNode op(String operation, Duration timeout) {
        String marker = "@@bench-" + (++seq) + "@@";
        try {
            stdin.write(operation);
            stdin.write("\n");
            stdin.write("echo " + marker + "\n");
            stdin.flush();
        } catch (IOException e) {
            throw new IllegalStateException("jboss-cli is gone (writing " + operation + "); see " + log, e);
        }
        StringBuilder answer = new StringBuilder();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String line;
            try {
                line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for jboss-cli", e);
            }
            if (line == null) {
                throw new IllegalStateException("jboss-cli did not answer " + operation + " within "
                        + timeout.toSeconds() + " s; see " + log);
            }
            if (line == EOF) {
                throw new IllegalStateException("jboss-cli exited while running " + operation + "; output: " + answer
                        + "; see " + log);
            }
            String clean = line.replaceAll("\u001B\\[[;\\d]*[A-Za-z]", "");
            if (clean.trim().equals(marker)) {
                break;
            }
            if (clean.contains("echo " + marker) || clean.startsWith("[standalone@") || clean.startsWith("[disconnected")) {
                continue;
            }
            answer.append(clean).append('\n');
        }
        String text = answer.toString();
        int start = text.indexOf('{');
        int end = text.lastIndexOf('}');
        if (start < 0 || end < start) {
            throw new IllegalStateException("jboss-cli answered " + operation + " with no JSON: " + text.trim());
        }
        JsonNode node;
        try {
            node = json.readTree(text.substring(start, end + 1));
        } catch (IOException e) {
            throw new IllegalStateException("jboss-cli answered " + operation + " with unreadable JSON: " + text, e);
        }
        if (!"success".equals(node.path("outcome").asText())) {
            throw new IllegalStateException("management operation " + operation + " failed: " + node);
        }
        return node.path("result");
    }

    @Override
    public void close() {
        try {
            stdin.write("quit\n");
            stdin.flush();
        } catch (IOException ignored) {
            // already gone
        }
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    private void pump() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
             BufferedWriter out = Files.newBufferedWriter(log, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                     StandardOpenOption.APPEND)) {
            String line;
            while ((line = r.readLine()) != null) {
                out.write(line);
                out.newLine();
                out.flush();
                lines.add(line);
            }
        } catch (IOException ignored) {
            // process gone
        } finally {
            lines.add(EOF);
        }
    }

    static String findExecutable(String name) {
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
        dirs.addAll(List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin"));
        for (String d : dirs) {
            if (!d.isEmpty()) {
                Path p = Path.of(d, name);
                if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                    return p.toString();
                }
            }
        }
        return null;
    }
}

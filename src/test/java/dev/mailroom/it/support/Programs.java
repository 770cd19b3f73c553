package dev.mailroom.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a program the way a user would (the Java SE and AMQP producer examples, WildFly's CLI) and gives back what it
 * printed, or fails with its output. Bounded: a program still running at the timeout is killed and the test fails.
 */
public final class Programs {

    private Programs() {
    }

    /** One finished run: the exit code and what it printed on stdout and stderr. */
    public record Run(int exitCode, String out, String err) {
        /** Stdout, trimmed; fails the caller with both streams unless the exit code was 0. */
        public String succeeded() {
            if (exitCode != 0) {
                throw new IllegalStateException("exit code " + exitCode + "\nstdout:\n" + out + "\nstderr:\n" + err);
            }
            return out.trim();
        }
    }

    /** Runs {@code command} in {@code dir} with {@code env} added to this JVM's environment. */
    public static Run run(List<String> command, Path dir, Map<String, String> env, Duration timeout) {
        try {
            Path out = Files.createTempFile("program-", ".out");
            Path err = Files.createTempFile("program-", ".err");
            ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
                    .redirectOutput(out.toFile()).redirectError(err.toFile());
            pb.environment().putAll(env);
            Process p = PostgresServer.ChildProcesses.start(pb);
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(command + " still running after " + timeout + "; stdout:\n"
                        + Files.readString(out, StandardCharsets.UTF_8) + "\nstderr:\n" + Files.readString(err, StandardCharsets.UTF_8));
            }
            Run run = new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
            return run;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * {@code java -cp <classpath> <main> <args>}, the classpath being this test JVM's without the given entries
     * (e.g. {@code target/classes}, so a program proves it runs on a jar alone) plus {@code extra} first.
     */
    public static List<String> java(List<Path> extra, List<Path> without, String mainClass, String... args) {
        List<String> classpath = new ArrayList<>();
        extra.forEach(p -> classpath.add(p.toString()));
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path p = Path.of(entry).toAbsolutePath().normalize();
            if (without.stream().noneMatch(w -> p.equals(w.toAbsolutePath().normalize()))) {
                classpath.add(entry);
            }
        }
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", String.join(java.io.File.pathSeparator, classpath), mainClass));
        cmd.addAll(List.of(args));
        return cmd;
    }
}

package dev.mailroom.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import dev.mailroom.bench.naive.NaiveSendConsumer;

/**
 * Packages the plain baseline beans, naive and guarded ({@code dev.mailroom.bench.naive}, test classes, and their
 * descriptors from {@code src/test/resources/bench/naive}) as {@code naive-mdb.war} for {@link SendBench} to deploy
 * into the benchmark's server. Built at run time from the compiled test classes, so it never enters Mailroom's WARs.
 */
final class NaiveWar {

    private NaiveWar() {
    }

    static Path build(Path war) {
        try {
            Path classes = Path.of(NaiveSendConsumer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path pkg = classes.resolve("dev/mailroom/bench/naive");
            Path resources = classes.resolve("bench/naive");
            Files.createDirectories(war.getParent());
            try (OutputStream file = Files.newOutputStream(war); JarOutputStream jar = new JarOutputStream(file);
                 Stream<Path> files = Files.list(pkg)) {
                for (Path c : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                    put(jar, "WEB-INF/classes/dev/mailroom/bench/naive/" + c.getFileName(), c);
                }
                put(jar, "WEB-INF/classes/META-INF/persistence.xml", resources.resolve("persistence.xml"));
                put(jar, "WEB-INF/classes/META-INF/naive-create.sql", resources.resolve("naive-create.sql"));
                put(jar, "WEB-INF/jboss-ejb3.xml", resources.resolve("jboss-ejb3.xml"));
            }
            return war;
        } catch (IOException e) {
            throw new UncheckedIOException("could not build " + war, e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void put(JarOutputStream jar, String name, Path from) throws IOException {
        jar.putNextEntry(new JarEntry(name));
        jar.write(Files.readAllBytes(from));
        jar.closeEntry();
    }
}

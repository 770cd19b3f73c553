package dev.mailroom;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package layout is the architecture (see {@code dev.mailroom} package docs): a ground
 * ({@code platform}), pure decisions ({@code recoverability}), capabilities, and operator adapters on
 * top ({@code ops.*}, {@code alert}). These rules keep it so.
 */
class ArchitectureTest {

    private static JavaClasses main;

    @BeforeAll
    static void importMain() {
        main = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.mailroom");
        assertThat(main.size()).as("classes imported").isGreaterThan(100);
    }

    @Test
    void no_cycles_between_top_level_packages() {
        slices().matching("dev.mailroom.(*)..").should().beFreeOfCycles().check(main);
    }

    @Test
    void no_cycles_between_sub_packages() {
        slices().matching("dev.mailroom.(**)").should().beFreeOfCycles().check(main);
    }

    @Test
    void the_ground_imports_nothing_of_ours() {
        noClasses().that().resideInAPackage("dev.mailroom.platform..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "dev.mailroom.job..", "dev.mailroom.send..", "dev.mailroom.provider..",
                        "dev.mailroom.recoverability..", "dev.mailroom.deadletter..", "dev.mailroom.redrive..",
                        "dev.mailroom.alert..", "dev.mailroom.ops..", "dev.mailroom.reconcile..",
                        "dev.mailroom.suppression..")
                .check(main);
    }

    @Test
    void pure_decisions_know_only_the_ground_and_provider_answers() {
        classes().that().resideInAPackage("dev.mailroom.recoverability..")
                .should().onlyDependOnClassesThat().resideOutsideOfPackages(
                        "dev.mailroom.job..", "dev.mailroom.send..", "dev.mailroom.deadletter..",
                        "dev.mailroom.redrive..", "dev.mailroom.alert..", "dev.mailroom.ops..",
                        "dev.mailroom.reconcile..", "dev.mailroom.suppression..", "dev.mailroom.provider.smtp..",
                        "dev.mailroom.provider.http..",
                        "dev.mailroom.provider.sandbox..")
                .check(main);
    }

    @Test
    void capabilities_never_use_the_adapters() {
        noClasses().that().resideInAnyPackage("dev.mailroom.platform..", "dev.mailroom.recoverability..",
                        "dev.mailroom.provider..", "dev.mailroom.job..", "dev.mailroom.send..",
                        "dev.mailroom.deadletter..", "dev.mailroom.redrive..", "dev.mailroom.reconcile..",
                        "dev.mailroom.suppression..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.mailroom.ops..", "dev.mailroom.alert..")
                .check(main);
    }

    @Test
    void adapters_never_use_each_other() {
        for (String adapter : List.of("api", "jmx", "security")) {
            noClasses().that().resideInAPackage("dev.mailroom.ops." + adapter + "..")
                    .should().dependOnClassesThat().resideInAnyPackage(
                            List.of("api", "jmx", "security").stream().filter(a -> !a.equals(adapter))
                                    .map(a -> "dev.mailroom.ops." + a + "..").toArray(String[]::new))
                    .check(main);
        }
    }

    @Test
    void core_code_throws_no_http_exceptions() {
        noClasses().that().resideOutsideOfPackages("dev.mailroom.ops..")
                .should().dependOnClassesThat().resideInAnyPackage("jakarta.ws.rs..")
                .because("a status code is the REST adapter's business; core code throws domain exceptions")
                .check(main);
    }

    @Test
    void every_package_has_a_package_info() throws IOException {
        Path root = Path.of("src/main/java/dev/mailroom");
        try (Stream<Path> dirs = Files.walk(root)) {
            List<Path> missing = dirs.filter(Files::isDirectory)
                    .filter(d -> !d.equals(root))
                    .filter(d -> hasJava(d))
                    .filter(d -> !Files.exists(d.resolve("package-info.java")))
                    .toList();
            assertThat(missing).as("packages without package-info.java").isEmpty();
        }
    }

    private static boolean hasJava(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.anyMatch(f -> f.toString().endsWith(".java"));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}

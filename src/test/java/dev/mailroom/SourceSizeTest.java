package dev.mailroom;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.javaparser.ParserConfiguration;
import com.github.javaparser.StaticJavaParser;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.body.CallableDeclaration;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A class over ~400 lines or a method over ~60 is doing several things (the developers' guide): in {@code src/main}
 * either it is split by concern or it says why it stays whole, in a comment starting {@code size:} (for a class, in its
 * file; for a method, in its own comment or body). A file counts all its
 * lines (comments too), a method from its signature to its closing brace.
 */
class SourceSizeTest {

    static final int CLASS_LINES = 400;
    static final int METHOD_LINES = 60;
    private static final Pattern SIZE_REASON = Pattern.compile("size:\\s*\\S{3,}");

    @BeforeAll
    static void parser() {
        StaticJavaParser.getParserConfiguration().setLanguageLevel(ParserConfiguration.LanguageLevel.JAVA_17);
    }

    @Test
    void everyClassIsSmallOrSaysWhyNot() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path file : sources()) {
            String text = Files.readString(file);
            long lines = text.lines().count();
            if (lines > CLASS_LINES && !SIZE_REASON.matcher(text).find()) {
                found.add(file + " has " + lines + " lines");
            }
        }
        assertThat(found).as("classes over %d lines without a 'size:' reason; split them by concern", CLASS_LINES)
                .isEmpty();
    }

    @Test
    void everyMethodIsShortOrSaysWhyNot() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path file : sources()) {
            found.addAll(longMethods(file.toString(), Files.readString(file)));
        }
        assertThat(found).as("methods over %d lines without a 'size:' reason; split them by concern", METHOD_LINES)
                .isEmpty();
    }

    @Test
    void aLongMethodIsFoundAndAReasonExcusesIt() {
        String body = "        x();\n".repeat(METHOD_LINES + 1);
        String plain = "class A {\n    void m() {\n" + body + "    }\n}\n";
        String excused = "class A {\n    // size: one table, read top to bottom\n    void m() {\n" + body + "    }\n}\n";
        String shortOne = "class A {\n    void m() {\n        x();\n    }\n}\n";
        assertThat(longMethods("A.java", plain)).singleElement().asString().contains("A.java", "m(", "lines");
        assertThat(longMethods("A.java", excused)).isEmpty();
        assertThat(longMethods("A.java", shortOne)).isEmpty();
    }

    static List<String> longMethods(String name, String text) {
        CompilationUnit unit = StaticJavaParser.parse(text);
        List<String> found = new ArrayList<>();
        for (CallableDeclaration<?> method : unit.findAll(CallableDeclaration.class)) {
            int begin = method.getBegin().orElseThrow().line;
            int end = method.getEnd().orElseThrow().line;
            int lines = end - begin + 1;
            if (lines > METHOD_LINES && !excused(method)) {
                found.add(name + ":" + begin + " " + method.getDeclarationAsString(false, false, false) + " has "
                        + lines + " lines");
            }
        }
        return found;
    }

    private static boolean excused(CallableDeclaration<?> method) {
        Matcher m = SIZE_REASON.matcher(method.toString());
        if (m.find()) {
            return true;
        }
        return method.getComment().map(c -> SIZE_REASON.matcher(c.getContent()).find()).orElse(false);
    }

    private static List<Path> sources() throws IOException {
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            return files.filter(f -> f.toString().endsWith(".java")).sorted().toList();
        }
    }
}

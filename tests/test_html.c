/* Tests of nd_html: what a report page must get right whatever it holds. The expected text
 * is written by hand from html.h's rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nd/html/html.h"
#include "nd/base/io.h"

/* Builds a page with build(), writes it and returns its text (caller frees). */
static char *page(void (*build)(nd_html *h))
{
    char dir[] = "/tmp/nd_test_html_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *path = nd_path_join(dir, "r.html");
    nd_html *h = nd_html_open("T <1>", "nd-test 0");
    assert_non_null(h);
    build(h);
    nd_error err = {0};
    assert_int_equal(nd_html_write(h, path, &err), ND_OK);
    nd_html_free(h);
    char *text = NULL;
    size_t len;
    assert_int_equal(nd_read_file(path, 1 << 20, &text, &len, &err), ND_OK);
    unlink(path);
    rmdir(dir);
    free(path);
    return text;
}

static void escaped(nd_html *h)
{
    nd_html_section(h, "summary", "A & B");
    nd_html_text(h, "%s", "<b> & \"q\" 'a'");
}

/* Text never becomes markup: < > & " ' are entities, in the title, headings and text. */
static void text_is_escaped(void **state)
{
    (void)state;
    char *t = page(escaped);
    assert_non_null(strstr(t, "<title>T &lt;1&gt;</title>"));
    assert_non_null(strstr(t, "<section id=\"summary\">\n<h2>A &amp; B</h2>"));
    assert_non_null(strstr(t, "<p>&lt;b&gt; &amp; &quot;q&quot; &#39;a&#39;</p>"));
    assert_null(strstr(t, "<b>"));
    assert_null(strstr(t, "<script")); /* a report carries no script */
    size_t n = strlen(t);
    assert_true(n > 16);
    assert_string_equal(t + n - 16, "</body>\n</html>\n");
    free(t);
}

static void figures(nd_html *h)
{
    static const char svg[] = "<?xml version=\"1.0\"?>\n<svg id='a'><defs><path id='p'/></defs>"
                              "<use xlink:href='#p'/><rect fill='url(#p)'/></svg>\n";
    nd_html_figure(h, svg, sizeof svg - 1, "one");
    nd_html_figure(h, svg, sizeof svg - 1, "two");
    nd_html_figure(h, "no svg here", 11, "three");
}

/* Two copies of one SVG on a page: the XML prologue dropped, every id and reference to it
 * prefixed f0- in the first figure and f1- in the second, so they do not clash. */
static void figures_are_inlined_with_their_own_ids(void **state)
{
    (void)state;
    char *t = page(figures);
    assert_null(strstr(t, "<?xml"));
    assert_non_null(
        strstr(t, "<svg role=\"img\" id='f0-a'><defs><path id='f0-p'/></defs><use xlink:href='#f0-p'/>"
                  "<rect fill='url(#f0-p)'/></svg>"));
    assert_non_null(strstr(t, "<svg role=\"img\" id='f1-a'>"));
    assert_non_null(strstr(t, "<figcaption>two</figcaption>"));
    assert_non_null(strstr(t, "(a plot could not be embedded: three)"));
    free(t);
}

static void table(nd_html *h)
{
    static const char *const headers[] = {"strategy", "error", "rows"};
    nd_html_grid g;
    assert_true(nd_html_grid_init(&g, 3, 2));
    nd_html_grid_set(&g, 0, 0, "DP %d MP %d", 8, 2);
    nd_html_grid_set(&g, 0, 1, "%+.1f %%", -6.25);
    nd_html_grid_set(&g, 0, 2, "%d", 12);
    nd_html_grid_set(&g, 5, 0, "out of the grid: ignored");
    nd_html_grid_table(h, "cap", headers, &g);
    nd_html_grid_free(&g);
}

/* Numbers right-aligned ("-6.2 %" and "12"), words not ("DP 8 MP 2"); a row never set is not
 * drawn, a cell outside the grid is ignored. */
static void tables_align_numbers(void **state)
{
    (void)state;
    char *t = page(table);
    assert_non_null(
        strstr(t, "<tr><td>DP 8 MP 2</td><td class=\"n\">-6.2 %</td><td class=\"n\">12</td></tr>"));
    assert_null(strstr(t, "out of the grid"));
    assert_int_equal((int)(strstr(t, "</tbody>") - strstr(t, "<tbody>")) > 0, 1);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_is_escaped),
        cmocka_unit_test(figures_are_inlined_with_their_own_ids),
        cmocka_unit_test(tables_align_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

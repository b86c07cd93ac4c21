/* Whether this machine's terminfo describes a terminal: a served explorer
 * runs for a client's terminal, named by the client, which the server's
 * machine may not know (curses would refuse to start). Kept apart from
 * the explorer's code, since <term.h> defines names such as lines and
 * columns as macros. */
#include "ui.h"

#include <curses.h>
#include <term.h>

bool ui_term_known(const char *term)
{
    int err = 0;
    TERMINAL *was = cur_term;
    if (setupterm((char *)term, -1, &err) != OK) return false;
    del_curterm(cur_term);
    set_curterm(was);
    return true;
}

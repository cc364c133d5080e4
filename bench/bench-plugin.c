/* SPDX-License-Identifier: LGPL-3.0-or-later */
int main (void)
{
    return 0;
}

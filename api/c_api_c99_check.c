/* kiln/kiln.h compiled as strict C99 (-std=c99 -pedantic -Werror) and linked against the
 * runtime library from C: the version, a refused load with its code and message, an option the
 * runtime refuses. Exit status 0 when every check holds. */
#include <stdio.h>
#include <string.h>

#include "kiln/kiln.h"

static int failures = 0;

static void expect(int ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "c99 check failed: %s\n", what);
    ++failures;
  }
}

int main(int argc, char** argv) {
  const char* missing = argc > 1 ? argv[1] : "/nonexistent/kiln-c99-check.kiln";
  kiln_trust_store* trust = NULL;
  kiln_model* model = NULL;
  kiln_session_options* options = NULL;
  kiln_status* status;

  expect(kiln_api_version() == KILN_API_VERSION, "kiln_api_version() == KILN_API_VERSION");
  expect(strlen(kiln_version()) > 0, "kiln_version() is not empty");

  status = kiln_trust_store_create(&trust);
  expect(status == NULL && trust != NULL, "kiln_trust_store_create");
  kiln_status_free(status);

  status = kiln_model_load(trust, missing, NULL, &model);
  expect(status != NULL && kiln_status_code(status) != KILN_OK, "a missing file is refused");
  expect(strstr(kiln_status_message(status), missing) != NULL, "the message names the file");
  expect(model == NULL, "no model is written on failure");
  printf("refused: %s\n", kiln_status_message(status));
  kiln_status_free(status);

  status = kiln_session_options_create(&options);
  expect(status == NULL, "kiln_session_options_create");
  kiln_status_free(status);
  status = kiln_session_options_set_threads(options, 0);
  expect(kiln_status_code(status) == KILN_INVALID_ARGUMENT, "0 threads is an invalid argument");
  kiln_status_free(status);

  kiln_session_options_free(options);
  kiln_trust_store_free(trust);
  if (failures == 0) printf("c99 check: ok\n");
  return failures == 0 ? 0 : 1;
}

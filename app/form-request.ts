import { data } from "react-router";
import { AppError } from "#shared/errors";
import { readFormFields, readFormWithFile } from "#shared/form-fields";

/**
 * A page action's form, or the clear 4xx page when it cannot be read (a repeated field, a file, a JSON body, text
 * that cannot be stored): thrown as React Router data, which the root's error boundary shows with its sentence.
 */
export async function readFormOrRefuse(request: Request): Promise<Record<string, string>> {
  try {
    return await readFormFields(request);
  } catch (error) {
    throw refusal(error);
  }
}

export async function readFormWithFileOrRefuse(
  request: Request,
  fileField: string,
): ReturnType<typeof readFormWithFile> {
  try {
    return await readFormWithFile(request, fileField);
  } catch (error) {
    throw refusal(error);
  }
}

function refusal(error: unknown): unknown {
  return error instanceof AppError ? data({ message: error.message }, { status: error.status }) : error;
}

import type { DataSignalOperator, DataSignalValueType } from '@contracts/domain';

export interface DataSignalPropertyRecord {
  propertyId: string;
  propertyName: string;
  operators: DataSignalOperator[];
  valueType: DataSignalValueType;
}

export interface DataSignalRecord {
  dataSignalId: number;
  dataSignalName: string;
  properties: DataSignalPropertyRecord[];
}
